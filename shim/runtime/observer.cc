#include "shim/runtime/observer.h"

#include <algorithm>

#include "shim/runtime/explore_schedule.h"

namespace colltune::shim {

void CellStats::Add(const CellStats& o) {
  calls += o.calls;
  timed += o.timed;
  explored += o.explored;
  sum_ns += o.sum_ns;
  for (int i = 0; i < histogram::kNumBins; ++i) bins[i] += o.bins[i];
}

namespace {

uint64_t MinEvents(const ObserveSettings& s) {
  if (s.mean_gap == 0) return 1;
  return std::max<uint64_t>(1, (s.explore_min_calls + s.mean_gap - 1) / s.mean_gap);
}

}  // namespace

CommObserver::CommObserver(const ObserveSettings& s)
    : settings_(s),
      min_events_(MinEvents(s)),
      skipped_bursts_(s.explore_every > 0 ? (min_events_ - 1) / s.explore_every : 0) {
  for (int c = 0; c < kNumCollectives; ++c) {
    Counter& k = counters_[c];
    // The same seed on every rank; different per collective so that
    // collectives called in lockstep do not all have events together.
    k.rng = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(c + 1) + 0x632be59bd9b4e019ULL;
    k.next_event = settings_.enabled() ? NextGap(k) : 0;
  }
}

uint64_t CommObserver::NextGap(Counter& k) {
  // xorshift64*: rank-consistent, cheap, and irregular enough that periodic
  // call patterns (8 B, 1 MiB, 8 B, 1 MiB, ...) do not alias with events.
  k.rng ^= k.rng >> 12;
  k.rng ^= k.rng << 25;
  k.rng ^= k.rng >> 27;
  const uint64_t r = k.rng * 0x2545f4914f6cdd1dULL;
  const uint64_t span = 2 * static_cast<uint64_t>(settings_.mean_gap) - 1;
  return 1 + (r >> 11) % span;  // uniform in 1..2*mean-1
}

CommObserver::EventPlan CommObserver::Plan(Collective c, int bucket) {
  Counter& k = counters_[IndexOf(c)];
  EventPlan plan;
  if (k.burst_left > 0) {
    // Inside a burst every call is an event. Calls of other buckets run the
    // table's choice untimed; a burst whose bucket stops coming ends after
    // kBurstPatience calls, so it never keeps the collective off its fast
    // path.
    k.next_event = k.calls + 1;
    plan.time = false;
    if (bucket == k.burst_bucket) {
      --k.burst_left;
      plan.explore = true;
      plan.time = true;
      plan.ordinal = k.burst_ordinal;
    }
    if (--k.burst_patience == 0) k.burst_left = 0;
    if (k.burst_left == 0) k.next_event = k.calls + k.resume_gap;
    return plan;
  }
  if (settings_.explore_every == 0) return plan;  // sampled by the thread's countdown
  k.next_event = k.calls + NextGap(k);
  const uint32_t events = ++k.bucket_events[bucket];
  if (events < min_events_ || events % settings_.explore_every != 0) return plan;
  uint64_t ordinal = 0;
  if (!BurstRuns(events / settings_.explore_every - skipped_bursts_, &ordinal)) return plan;
  // This call warms the alternative up; the next kBurst - 1 calls of the
  // bucket run it timed.
  plan.explore = true;
  plan.time = false;
  plan.ordinal = ordinal;
  k.burst_bucket = bucket;
  k.burst_ordinal = plan.ordinal;
  k.burst_left = kBurst - 1;
  k.burst_patience = kBurstPatience;
  k.resume_gap = k.next_event - k.calls;
  k.next_event = k.calls + 1;
  return plan;
}

void CommObserver::Record(Collective c, Algorithm a, int bucket, uint64_t ns,
                          bool explored) {
  const int ci = IndexOf(c);
  const uint32_t key = CellKey(c, a, bucket);
  CellStats* cell = last_cell_[ci];
  if (cell == nullptr || last_key_[ci] != key) {
    try {
      std::unique_ptr<CellStats>& slot = cells_[key];
      if (!slot) slot.reset(new CellStats);
      cell = slot.get();
    } catch (...) {  // out of memory: the job goes on, the sample is lost
      ++dropped_;
      return;
    }
    last_cell_[ci] = cell;
    last_key_[ci] = key;
  }
  cell->calls += explored ? 1 : settings_.mean_gap;
  ++cell->timed;
  cell->explored += explored ? 1 : 0;
  cell->sum_ns += ns;
  ++cell->bins[histogram::BinOf(ns)];
}

const std::vector<Algorithm>& Alternatives(Collective c, Algorithm chosen) {
  // Built once for every (collective, chosen algorithm) pair.
  static const auto* table = [] {
    auto* t = new std::array<std::array<std::vector<Algorithm>, kNumAlgorithms>,
                             kNumCollectives>;
    for (int ci = 0; ci < kNumCollectives; ++ci) {
      const Collective coll = static_cast<Collective>(ci);
      for (int ch = 0; ch < kNumAlgorithms; ++ch) {
        for (int a = 0; a < kNumAlgorithms; ++a) {
          const Algorithm alg = static_cast<Algorithm>(a);
          // The libraries' own algorithms are measured by campaigns, not
          // explored online: under Open MPI each would cost a communicator.
          // Seed 003's datatype forms are chosen per layout by campaigns
          // over the datatype grid; on contiguous data they run as default.
          if (a != ch && Implements(alg, coll) && !IsNative(alg) && !IsDatatypeForm(alg)) {
            (*t)[ci][ch].push_back(alg);
          }
        }
      }
    }
    return t;
  }();
  return (*table)[IndexOf(c)][IndexOf(chosen)];
}

}  // namespace colltune::shim
