#include "shim/runtime/table_source.h"

#include <cstdint>
#include <vector>

#include "common/limits.h"
#include "common/table_wire.h"
#include "shim/runtime/agent.h"
#include "shim/runtime/cache.h"
#include "shim/runtime/clock.h"
#include "shim/runtime/grpc_call.h"
#include "shim/runtime/log.h"

namespace colltune::shim {
namespace {

// The agent gets a little less time than we wait, so that it can give up
// cleanly (and say why) before it is killed.
int AgentDeadlineMs(int timeout_ms) {
  int margin = timeout_ms / 5;
  if (margin > 50) margin = 50;
  return timeout_ms - margin > 1 ? timeout_ms - margin : 1;
}

std::string CacheKey(const Config& config, const JobContext& context) {
  return config.server + "\n" + context.library + "\n" +
         context.library_version + "\n" + std::to_string(context.comm_size) +
         "\n" + std::to_string(context.nodes) + "\n" +
         std::to_string(context.ppn);
}

bool FromFile(const std::string& path, Table* table) {
  std::string text, error;
  if (!ReadFileLimited(path, kMaxTableTextBytes, &text, &error)) {
    LogError("COLLTUNE_TABLE: %s; ignoring it", error.c_str());
    return false;
  }
  if (!ParseTable(text, table, &error)) {
    LogError("COLLTUNE_TABLE: %s: %s; ignoring it", path.c_str(),
             error.c_str());
    return false;
  }
  return true;
}

int64_t NowMs() { return static_cast<int64_t>(clock::MonotonicNs() / 1000000); }

// The table from the daemon's answer; false (said why) if it is unusable.
bool TableFromAnswer(const Config& config, const std::string& answer, Table* table) {
  wire::TableMessage message;
  std::string text, error;
  std::vector<std::string> warnings;
  const bool ok = wire::DecodeGetTableResponse(answer, &message, &error) &&
                  wire::TableTextFromMessage(message, &text, &warnings, &error) &&
                  ParseTable(text, table, &error);
  for (const std::string& w : warnings) LogInfo(1, "daemon %s: %s", config.server.c_str(), w.c_str());
  if (!ok) {
    LogInfo(1, "daemon %s sent an unusable table: %s", config.server.c_str(), error.c_str());
  }
  return ok;
}

// Through the agent: the same request made by `colltune table`, for servers
// the direct call cannot talk to (TLS, other address forms) and to say in
// words why a daemon refused.
bool FromAgent(const Config& config, const JobContext& context, int timeout_ms,
               Table* table) {
  std::string agent = FindAgent(config.agent);
  if (agent.empty()) {
    LogInfo(1, "no agent program found (set COLLTUNE_AGENT); daemon not asked");
    return false;
  }
  std::vector<std::string> args = {
      "table",
      "--format=shim",
      "--server=" + config.server,
      "--timeout-ms=" + std::to_string(AgentDeadlineMs(timeout_ms)),
      "--library=" + context.library,
      "--library-version=" + context.library_version,
      "--comm-size=" + std::to_string(context.comm_size),
      "--nodes=" + std::to_string(context.nodes),
      "--ppn=" + std::to_string(context.ppn),
  };
  AgentResult r = RunAgent(agent, args, timeout_ms, kMaxTableTextBytes,
                           VerboseLevel() >= 1);
  if (!r.ok) {
    LogInfo(1, "daemon %s: %s", config.server.c_str(), r.error.c_str());
    return false;
  }
  std::string error;
  if (!ParseTable(r.output, table, &error)) {
    LogInfo(1, "daemon %s sent an unusable table: %s", config.server.c_str(),
            error.c_str());
    return false;
  }
  return true;
}

// Asks the daemon with one gRPC call of our own (grpc_call.h), falling back
// to the agent when the daemon was reached but the call did not give a
// table and time is left.
bool FromDaemon(const Config& config, const JobContext& context,
                const std::string& cache_path, Table* table) {
  const int64_t start = NowMs();
  const int64_t deadline = start + config.timeout_ms;
  bool got = false;
  if (config.tls_ca.empty() && CallableDirectly(config.server)) {
    wire::TableRequest request;
    request.library = context.library;
    request.library_version = context.library_version;
    request.comm_size = context.comm_size;
    request.nodes = context.nodes;
    request.ppn = context.ppn;
    const GrpcCallResult r =
        CallUnary(config.server, "/colltune.v1.Tuning/GetTable",
                  wire::EncodeGetTableRequest(request), config.timeout_ms,
                  limits::kMaxRequestBytes);
    LogInfo(2, "daemon's GetTable call took %lld ms", static_cast<long long>(NowMs() - start));
    if (r.ok) {
      got = TableFromAnswer(config, r.response, table);
    } else {
      LogInfo(1, "daemon %s: %s", config.server.c_str(), r.error.c_str());
    }
    const int64_t left = deadline - NowMs();
    if (!got && r.reached && left > 10) {
      LogInfo(1, "asking through the agent");
      *table = Table();
      got = FromAgent(config, context, static_cast<int>(left), table);
    }
  } else {
    got = FromAgent(config, context, config.timeout_ms, table);
  }
  if (!got) return false;
  std::string error;
  if (!cache_path.empty() && !WriteFileAtomic(cache_path, FormatTable(*table), &error)) {
    LogInfo(1, "cannot cache the table: %s", error.c_str());
  }
  return true;
}

bool FromCache(const std::string& path, Table* table) {
  std::string text, error;
  if (!ReadFileLimited(path, kMaxTableTextBytes, &text, &error)) return false;
  if (!ParseTable(text, table, &error)) {
    LogInfo(1, "cached table %s is unusable: %s", path.c_str(), error.c_str());
    return false;
  }
  return true;
}

}  // namespace

AcquiredTable AcquireTable(const Config& config, const JobContext& context) {
  AcquiredTable out;
  out.source = "none";
  const std::string cache_path =
      config.cache_dir.empty() || config.server.empty()
          ? std::string()
          : CachePath(config.cache_dir, CacheKey(config, context));
  Table table;
  if (!config.table_path.empty() && FromFile(config.table_path, &table)) {
    out.source = "file " + config.table_path;
  } else if (!config.server.empty() &&
             FromDaemon(config, context, cache_path, &table)) {
    out.source = "daemon " + config.server;
  } else if (!cache_path.empty() && FromCache(cache_path, &table)) {
    out.source = "cache " + cache_path;
  }
  // COLLTUNE_FORCE overrides the table for the collectives it names.
  std::array<std::optional<Algorithm>, kNumCollectives> forced = table.forced;
  for (const std::string& error : ParseForce(config.force, &forced)) {
    LogError("%s; ignoring it", error.c_str());
  }
  table.forced = forced;
  out.table = std::move(table);
  return out;
}

}  // namespace colltune::shim
