#include "shim/runtime/table_source.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/layout.h"
#include "common/library_id.h"

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
         std::to_string(context.ppn) + "\n" + context.placement + "\n" +
         context.node_sizes;
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
  // An empty value is no value to the CLI (it refuses "--node-sizes="):
  // what the job did not find out is left out.
  if (!context.placement.empty()) args.push_back("--placement=" + context.placement);
  if (!context.node_sizes.empty()) args.push_back("--node-sizes=" + context.node_sizes);
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

constexpr char kGetTable[] = "/colltune.v1.Tuning/GetTable";

std::string EncodedRequest(const JobContext& context) {
  wire::TableRequest request;
  request.context = context;
  request.decisions_only = true;  // the shim reads no evidence
  return wire::EncodeGetTableRequest(request);
}

// The request sent before the library started (PrefetchTable), and what it
// asked. One per process: it lives from MPI_Init's entry to the shim's start
// in the same thread, which is all MPI lets a process initialize once.
struct Prefetch {
  bool active = false;
  std::string server;
  std::string request;
  int64_t started_ms = 0;
  PendingCall call;
};
Prefetch prefetch;

// The prefetched call's outcome, answer or failure, if it asked what
// `request` asks of `server` (a daemon it could not reach is not tried a
// second time); false if there is none to take. The connection is closed
// either way.
bool TakePrefetched(const std::string& server, const std::string& request,
                    int timeout_ms, GrpcCallResult* out) {
  if (!prefetch.active) return false;
  prefetch.active = false;
  if (prefetch.server != server || prefetch.request != request) {
    LogInfo(2, "the table requested before MPI_Init named another context; asking again");
    AbandonUnary(&prefetch.call);
    return false;
  }
  *out = FinishUnary(&prefetch.call, timeout_ms, limits::kMaxRequestBytes);
  LogInfo(2, "daemon's GetTable call, sent before MPI_Init, ended %lld ms after it was sent",
          static_cast<long long>(NowMs() - prefetch.started_ms));
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
    const std::string request = EncodedRequest(context);
    GrpcCallResult r;
    if (!TakePrefetched(config.server, request, config.timeout_ms, &r)) {
      r = CallUnary(config.server, kGetTable, request, config.timeout_ms,
                    limits::kMaxRequestBytes);
      LogInfo(2, "daemon's GetTable call took %lld ms",
              static_cast<long long>(NowMs() - start));
    }
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

// What the launcher says of this process before MPI does: Open MPI's mpirun
// and MPICH's Hydra export the rank, the size and the processes on this
// node. False when they do not (a singleton, another launcher).
bool ContextFromLauncher(JobContext* context, int* rank) {
  struct Names {
    const char* rank;
    const char* size;
    const char* local_size;
  };
  static constexpr Names kLaunchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"},
  };
  for (const Names& n : kLaunchers) {
    const char* r = getenv(n.rank);
    const char* s = getenv(n.size);
    const char* l = getenv(n.local_size);
    if (r == nullptr || s == nullptr || l == nullptr) continue;
    char* end = nullptr;
    const long rank_value = strtol(r, &end, 10);
    if (*r == 0 || *end != 0) return false;
    const long size = strtol(s, &end, 10);
    if (*s == 0 || *end != 0) return false;
    const long local = strtol(l, &end, 10);
    if (*l == 0 || *end != 0) return false;
    if (size < 1 || local < 1 || local > size || size > (1L << 30)) return false;
    *rank = static_cast<int>(rank_value);
    context->comm_size = static_cast<int>(size);
    // Every node as full as this one: right for the usual layouts, and a
    // wrong guess only costs the call made again once MPI knows.
    context->ppn = static_cast<int>(local);
    context->nodes = static_cast<int>((size + local - 1) / local);
    context->placement = kPlacementBlock;
    return true;
  }
  return false;
}

}  // namespace

void PrefetchTable() {
  if (prefetch.active || DisabledByEnvironment()) return;
  JobContext context;
  int rank = -1;
  if (!ContextFromLauncher(&context, &rank) || rank != 0) return;
  const Config config = ReadConfig();
  // Only where AcquireTable would ask the daemon directly.
  if (!config.table_path.empty() || config.server.empty() || !config.tls_ca.empty() ||
      !CallableDirectly(config.server)) {
    return;
  }
  // MPI lets MPI_Get_library_version be called before MPI_Init.
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  if (PMPI_Get_library_version(version, &length) != MPI_SUCCESS) return;
  const LibraryId id = ParseLibraryVersion(std::string(version, length));
  context.library = id.name;
  context.library_version = id.version;
  prefetch.server = config.server;
  prefetch.request = EncodedRequest(context);
  prefetch.started_ms = NowMs();
  prefetch.call = StartUnary(config.server, kGetTable, prefetch.request, config.timeout_ms);
  prefetch.active = true;
}

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
