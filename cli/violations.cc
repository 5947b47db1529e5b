// colltune violations: the performance guidelines the profiled MPI library
// breaks, as a table (seed 004's Figure 4, in rows), seed 003's datatype
// guidelines in a table of their own; where its own algorithm
// selection picks a slower algorithm than one it has (selection); and where a
// larger message is faster (monotony).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rpc.h"
#include "client/client.h"

namespace colltune::cli {
namespace {

// By family, then number: "GL12" sorts after "GL3", seed 003's "DGL2" apart
// from seed 004's.
std::pair<std::string, int> GuidelineKey(const std::string& g) {
  const size_t digits = g.find_first_of("0123456789");
  if (digits == std::string::npos) return {g, 0};
  return {g.substr(0, digits), atoi(g.c_str() + digits)};
}

// What the current table does about a violation: the algorithm it runs
// at the point and, where the faster one cannot replace default by the
// engine's tests, why not.
std::string TableCell(const v1::Violation& v) {
  std::string out = v.table_algorithm().empty() ? "?" : v.table_algorithm();
  if (!v.not_chosen().empty()) out += " (" + v.not_chosen() + ")";
  return out;
}

}  // namespace

int ShowViolations(const Connection& c, int64_t profile, bool as_json) {
  v1::GetViolationsRequest request;
  request.set_profile_id(profile);
  v1::GetViolationsResponse response;
  absl::Status s = Ask(c, &v1::Tuning::Stub::GetViolations, request, &response);
  if (!s.ok()) return Fail(s);

  // Seed 003's (measured with a derived datatype's layout) apart from the
  // others: they are about how the library moves described data.
  std::vector<v1::Violation> guideline, datatype, selection, monotony, defect;
  for (const v1::Violation& v : response.violations()) {
    (v.kind() == "monotony"    ? monotony
     : v.kind() == "selection" ? selection
     : v.kind() == "defect"    ? defect
     : !v.layout().empty()     ? datatype
                               : guideline)
        .push_back(v);
  }
  std::sort(datatype.begin(), datatype.end(),
            [](const v1::Violation& a, const v1::Violation& b) {
              return std::make_tuple(a.collective(), a.layout(), a.msg_bytes()) <
                     std::make_tuple(b.collective(), b.layout(), b.msg_bytes());
            });
  std::sort(guideline.begin(), guideline.end(),
            [](const v1::Violation& a, const v1::Violation& b) {
              return std::make_tuple(GuidelineKey(a.guideline()),
                                     a.collective(), a.algorithm(), a.msg_bytes()) <
                     std::make_tuple(GuidelineKey(b.guideline()),
                                     b.collective(), b.algorithm(), b.msg_bytes());
            });
  std::sort(selection.begin(), selection.end(),
            [](const v1::Violation& a, const v1::Violation& b) {
              return std::make_tuple(a.collective(), a.msg_bytes(), a.algorithm()) <
                     std::make_tuple(b.collective(), b.msg_bytes(), b.algorithm());
            });
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const v1::Violation& v : defect) {
      out.push_back({{"kind", v.kind()},
                     {"collective", v.collective()},
                     {"algorithm", v.algorithm()},
                     {"forms", v.forms()},
                     {"evidence", v.evidence()},
                     {"in_table", v.in_table()}});
    }
    for (const auto* list : {&guideline, &datatype, &selection, &monotony}) {
      for (const v1::Violation& v : *list) {
        out.push_back({{"kind", v.kind()},
                       {"collective", v.collective()},
                       {"algorithm", v.algorithm()},
                       {"guideline", v.guideline()},
                       {"layout", v.layout()},
                       {"msg_bytes", v.msg_bytes()},
                       {"larger_bytes", v.larger_bytes()},
                       {"factor", v.factor()},
                       {"p_value", v.p_value()},
                       {"launches", v.launches()},
                       {"table_algorithm", v.table_algorithm()},
                       {"not_chosen", v.not_chosen()}});
      }
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  printf("guideline violations of profile %lld: the library's default is "
         "significantly slower than a mock-up\n",
         static_cast<long long>(profile));
  printf("(table runs: what the profile's current table runs at the point; in "
         "parentheses, why the faster one cannot replace default: a violation is found "
         "from a barrier, without a margin; a decision needs the margin, and not to be "
         "slower in any regime)\n");
  printf("%-6s %-22s %-44s %10s %8s %7s %8s  %s\n", "guide", "collective",
         "faster mock-up", "bytes", "factor", "p", "launches", "table runs");
  std::set<std::string> guidelines;
  for (const v1::Violation& v : guideline) {
    guidelines.insert(v.guideline());
    printf("%-6s %-22s %-44s %10lld %7.2fx %7s %8d  %s\n", v.guideline().c_str(),
           v.collective().c_str(), v.algorithm().c_str(),
           static_cast<long long>(v.msg_bytes()), v.factor(),
           PValue(v.p_value()).c_str(), v.launches(), TableCell(v).c_str());
  }
  if (guideline.empty()) printf("(none)\n");
  printf("\ndatatype guideline violations (seed 003): the data of a derived datatype "
         "moves significantly faster as one contiguous type (DGL1), packed (DGL2) or "
         "through the type's normal form (DGL4) than the library moves it through the "
         "type\n");
  printf("%-6s %-22s %-14s %-44s %10s %8s %7s %8s  %s\n", "guide", "collective", "layout",
         "faster form", "bytes", "factor", "p", "launches", "table runs");
  for (const v1::Violation& v : datatype) {
    guidelines.insert(v.guideline());
    printf("%-6s %-22s %-14s %-44s %10lld %7.2fx %7s %8d  %s\n", v.guideline().c_str(),
           v.collective().c_str(), v.layout().c_str(), v.algorithm().c_str(),
           static_cast<long long>(v.msg_bytes()), v.factor(), PValue(v.p_value()).c_str(),
           v.launches(), TableCell(v).c_str());
  }
  if (datatype.empty()) printf("(none)\n");
  // The library's own algorithms beating its default: its decision rules
  // pick the slower one. Not a guideline: no mock-up is needed to fix it.
  printf("\nselection violations: one of the library's own algorithms is "
         "significantly faster than the one it selects\n");
  printf("%-22s %-44s %10s %8s %7s %8s  %s\n", "collective", "faster native algorithm",
         "bytes", "factor", "p", "launches", "table runs");
  for (const v1::Violation& v : selection) {
    printf("%-22s %-44s %10lld %7.2fx %7s %8d  %s\n", v.collective().c_str(),
           v.algorithm().c_str(), static_cast<long long>(v.msg_bytes()), v.factor(),
           PValue(v.p_value()).c_str(), v.launches(), TableCell(v).c_str());
  }
  if (selection.empty()) printf("(none)\n");
  printf("\nmonotony violations: a larger message is significantly faster\n");
  printf("%-22s %10s %12s %8s %7s %8s\n", "collective", "bytes", "larger_bytes",
         "factor", "p", "launches");
  for (const v1::Violation& v : monotony) {
    printf("%-22s %10lld %12lld %7.2fx %7s %8d\n", v.collective().c_str(),
           static_cast<long long>(v.msg_bytes()),
           static_cast<long long>(v.larger_bytes()), v.factor(),
           PValue(v.p_value()).c_str(), v.launches());
  }
  if (monotony.empty()) printf("(none)\n");
  printf("\nlibrary defects: the library's own algorithm, forced, is wrong for these "
         "calls (colltune runs the default there)\n");
  for (const v1::Violation& v : defect) {
    printf("%-22s %-36s %s%s: %s\n", v.collective().c_str(), v.algorithm().c_str(),
           v.forms().c_str(), v.in_table() ? " [named by the current table]" : "",
           v.evidence().c_str());
  }
  if (defect.empty()) printf("(none)\n");
  printf("\n%zu guideline violations of %zu guidelines (%zu of seed 003's), %zu monotony "
         "violations, %zu selection violations, %zu library defects\n",
         guideline.size() + datatype.size(), guidelines.size(), datatype.size(),
         monotony.size(), selection.size(), defect.size());
  return 0;
}

}  // namespace colltune::cli
