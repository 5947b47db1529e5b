// colltune history | rollback | pin | unpin | pins: a profile's decision
// table over time, and the administrator's say in it.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"

namespace colltune::cli {
namespace {

using nlohmann::json;

json PinJson(const v1::Pin& p) {
  return {{"id", p.id()},
          {"profile_id", p.profile_id()},
          {"collective", p.collective()},
          {"min_bytes", p.min_bytes()},
          {"max_bytes", p.max_bytes() < 0 ? json(nullptr) : json(p.max_bytes())},
          {"algorithm", p.algorithm()},
          {"note", p.note()},
          {"created_at", p.created_at()}};
}

// One change per line: the daemon joins them with "; ".
void PrintChanges(const std::string& changes) {
  size_t start = 0;
  while (start < changes.size()) {
    size_t end = changes.find("; ", start);
    if (end == std::string::npos) end = changes.size();
    printf("      %s\n", changes.substr(start, end - start).c_str());
    start = end + 2;
  }
}

}  // namespace

int ShowHistory(const Connection& c, int64_t profile, int64_t version,
                bool as_json) {
  if (version > 0) {
    v1::GetTableVersionRequest request;
    request.set_profile_id(profile);
    request.set_version(version);
    v1::GetTableVersionResponse response;
    absl::Status s = Ask(c, &v1::Tuning::Stub::GetTableVersion, request, &response);
    if (!s.ok()) return Fail(s);
    const v1::TableSection& t = response.table();
    if (as_json) {
      json rules = json::array();
      for (const v1::Rule& r : t.rules()) rules.push_back(RuleJson(r));
      json out = {{"profile_id", t.profile_id()}, {"version", t.version()},
                  {"comm_size", t.comm_size()},   {"created_at", t.created_at()},
                  {"reason", t.reason()},         {"rules", rules}};
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    printf("profile %lld, table version %lld (%s): %s\n",
           static_cast<long long>(t.profile_id()),
           static_cast<long long>(t.version()), t.created_at().c_str(),
           t.reason().c_str());
    PrintRules(t);
    return 0;
  }
  v1::GetTableHistoryRequest request;
  request.set_profile_id(profile);
  v1::GetTableHistoryResponse response;
  absl::Status s = Ask(c, &v1::Tuning::Stub::GetTableHistory, request, &response);
  if (!s.ok()) return Fail(s);
  if (as_json) {
    json out = json::array();
    for (const v1::TableVersionSummary& v : response.versions()) {
      out.push_back({{"version", v.version()},
                     {"created_at", v.created_at()},
                     {"reason", v.reason()},
                     {"changes", v.changes()},
                     {"rules_not_default", v.rules_not_default()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  printf("decision-table history of profile %lld (newest first)\n",
         static_cast<long long>(profile));
  printf("%8s  %-20s %11s  %s\n", "version", "created", "not default",
         "reason / changes");
  for (const v1::TableVersionSummary& v : response.versions()) {
    printf("%8lld  %-20s %11d  %s\n", static_cast<long long>(v.version()),
           v.created_at().c_str(), v.rules_not_default(), v.reason().c_str());
    if (v.changes().empty()) {
      printf("      (no change)\n");
    } else {
      PrintChanges(v.changes());
    }
  }
  if (response.versions().empty()) printf("(no table yet)\n");
  return 0;
}

int Rollback(const Connection& c, int64_t profile, int64_t version) {
  v1::RollbackTableRequest request;
  request.set_profile_id(profile);
  request.set_version(version);
  v1::RollbackTableResponse response;
  absl::Status s =
      AskAsAdmin(c, "RollbackTable", profile, &v1::Tuning::Stub::RollbackTable, request, &response);
  if (!s.ok()) return Fail(s);
  printf("profile %lld: the rules of version %lld are current again as version "
         "%lld\n",
         static_cast<long long>(profile), static_cast<long long>(version),
         static_cast<long long>(response.table_version()));
  return 0;
}

int AddPin(const Connection& c, const PinArgs& args) {
  v1::PinRequest request;
  v1::Pin* pin = request.mutable_pin();
  pin->set_profile_id(args.profile);
  pin->set_collective(args.collective);
  pin->set_min_bytes(args.min_bytes);
  pin->set_max_bytes(args.max_bytes);
  pin->set_algorithm(args.algorithm);
  pin->set_note(args.note);
  v1::PinResponse response;
  absl::Status s =
      AskAsAdmin(c, "Pin", args.profile, &v1::Tuning::Stub::Pin, request, &response);
  if (!s.ok()) return Fail(s);
  printf("pin %lld: %s %lld-%s uses %s; profile %lld table version now %lld\n",
         static_cast<long long>(response.pin_id()), args.collective.c_str(),
         static_cast<long long>(args.min_bytes), Bytes(args.max_bytes).c_str(),
         args.algorithm.c_str(), static_cast<long long>(args.profile),
         static_cast<long long>(response.table_version()));
  return 0;
}

int RemovePin(const Connection& c, int64_t profile, int64_t pin) {
  v1::UnpinRequest request;
  request.set_profile_id(profile);
  request.set_pin_id(pin);
  v1::UnpinResponse response;
  absl::Status s =
      AskAsAdmin(c, "Unpin", profile, &v1::Tuning::Stub::Unpin, request, &response);
  if (!s.ok()) return Fail(s);
  printf("pin %lld removed; profile %lld table version now %lld\n",
         static_cast<long long>(pin), static_cast<long long>(profile),
         static_cast<long long>(response.table_version()));
  return 0;
}

int ListPins(const Connection& c, int64_t profile, bool as_json) {
  v1::ListPinsRequest request;
  request.set_profile_id(profile);
  v1::ListPinsResponse response;
  absl::Status s = Ask(c, &v1::Tuning::Stub::ListPins, request, &response);
  if (!s.ok()) return Fail(s);
  if (as_json) {
    json out = json::array();
    for (const v1::Pin& p : response.pins()) out.push_back(PinJson(p));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  printf("%5s  %-22s %10s %10s  %-44s %-20s %s\n", "pin", "collective",
         "min_bytes", "max_bytes", "algorithm", "created", "note");
  for (const v1::Pin& p : response.pins()) {
    printf("%5lld  %-22s %10lld %10s  %-44s %-20s %s\n",
           static_cast<long long>(p.id()), p.collective().c_str(),
           static_cast<long long>(p.min_bytes()), Bytes(p.max_bytes()).c_str(),
           p.algorithm().c_str(), p.created_at().c_str(), p.note().c_str());
  }
  if (response.pins().empty()) printf("(no pins)\n");
  return 0;
}

}  // namespace colltune::cli
