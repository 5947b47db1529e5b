#include "shim/runtime/regime_switch.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "shim/runtime/clock.h"
#include "shim/runtime/log.h"

namespace colltune::shim {
namespace {

template <class T>
double MedianOf(T* values, size_t n) {
  std::nth_element(values, values + n / 2, values + n);
  return static_cast<double>(values[n / 2]);
}

// A probe's cost before one was timed: an allreduce of a few doubles.
constexpr double kProbeGuessNs = 5000;

}  // namespace

RegimeSwitch::Found RegimeSwitch::Classify(double spread, double gap, double call) {
  if (!(call > 0)) return Found::kSynchronized;
  // Spread against the gap too: ranks that each work long and evenly still
  // drift by the host's noise, which is no unevenness of the program's.
  if (spread > kUneven * call && spread > kUneven * gap && spread > kMinSpreadNs) {
    return Found::kImbalance;
  }
  if (gap < kBackToBack * call) return Found::kLoop;
  return Found::kSynchronized;
}

RegimeSwitch::RegimeSwitch(const std::array<Slice, kNumCollectives>& slices, MPI_Comm comm,
                           int rank)
    : comm_(comm), rank_(rank) {
  for (int c = 0; c < kNumCollectives; ++c) {
    bool any = false;
    for (uint32_t i = 0; i < slices[c].count; ++i) any |= slices[c].ranges[i].switches;
    if (any) states_[c].resize(slices[c].count);
  }
}

void RegimeSwitch::Open(State* st, uint64_t k) {
  pending_ = st;
  pending_t0_ = clock::Now();
  // Calls next_probe - kWindow .. next_probe - 1 fill the window; the one
  // before them only marks its exit, from which the first gap counts.
  pending_slot_ = k + kWindow >= st->next_probe
                      ? static_cast<int>(k + kWindow - st->next_probe)
                      : -1;
  if (pending_slot_ >= 0) {
    st->gap[pending_slot_] =
        st->last_exit ? static_cast<float>(clock::ElapsedNs(st->last_exit, pending_t0_)) : 0;
    if (st->last_exit && barriers_ != st->barriers_at_exit) ++st->after_barrier;
  }
}

void RegimeSwitch::Close() {
  const uint64_t t1 = clock::Now();
  if (pending_slot_ >= 0) {
    pending_->call[pending_slot_] = static_cast<float>(clock::ElapsedNs(pending_t0_, t1));
  }
  pending_->last_exit = t1;
  pending_->barriers_at_exit = barriers_;
  pending_ = nullptr;
}

void RegimeSwitch::Probe(State* st, Collective c, const Range& r) {
  const uint64_t t0 = clock::Now();
  // Per window call: the largest gap and the largest negated gap (the
  // smallest); then the call's time (per-rank median) both ways, and the
  // slowest rank's last probe.
  double v[2 * kWindow + 4];
  for (uint32_t j = 0; j < kWindow; ++j) {
    v[j] = st->gap[j];
    v[kWindow + j] = -static_cast<double>(st->gap[j]);
  }
  float calls[kWindow];
  std::copy(st->call, st->call + kWindow, calls);
  const double call = MedianOf(calls, kWindow);
  v[2 * kWindow] = call;
  v[2 * kWindow + 1] = -call;
  v[2 * kWindow + 2] = static_cast<double>(st->last_probe_ns);
  v[2 * kWindow + 3] = st->after_barrier;
  Found found = Found::kSynchronized;
  uint64_t period = kMinPeriod;
  if (PMPI_Allreduce(MPI_IN_PLACE, v, 2 * kWindow + 4, MPI_DOUBLE, MPI_MAX, comm_) ==
      MPI_SUCCESS) {
    double spread[kWindow], gap[kWindow];
    for (uint32_t j = 0; j < kWindow; ++j) {
      spread[j] = v[j] + v[kWindow + j];
      gap[j] = v[j];
    }
    const double fastest = -v[2 * kWindow + 1];
    found = Classify(MedianOf(spread, kWindow), MedianOf(gap, kWindow), fastest);
    if (found == Found::kLoop && 2 * v[2 * kWindow + 3] > kWindow) {
      found = Found::kSynchronized;  // barrier, call, barrier, call
    }
    const double cost = v[2 * kWindow + 2] > 0 ? v[2 * kWindow + 2] : kProbeGuessNs;
    if (fastest > 0) {
      const double calls_per_probe = std::ceil(100 * cost / fastest);
      period = static_cast<uint64_t>(
          std::min<double>(kMaxPeriod, std::max<double>(kMinPeriod, calls_per_probe)));
    }
  }
  // A failed allreduce fails on every rank of a working communicator: the
  // rule's algorithm runs until the next probe.
  // A regime changes only when two probes in a row find it: one window's
  // noise (a descheduled rank) does not move it.
  const bool change = found != st->found && found == st->seen;
  if (change) st->found = found;
  if (change && rank_ == 0 && VerboseLevel() >= 2) {
    static const char* const kPhrase[] = {"synchronized", "back to back", "after uneven work"};
    const Algorithm runs = found == Found::kLoop        ? r.loop
                           : found == Found::kImbalance ? r.imbalance
                                                        : r.algorithm;
    LogInfo(2, "regime switch: %s calls of %llu-%s bytes found %s at call %llu: %s runs",
            std::string(InfoOf(c).name).c_str(), static_cast<unsigned long long>(r.lo),
            r.hi == kNoUpperBound ? "inf" : std::to_string(r.hi).c_str(),
            kPhrase[static_cast<int>(found)], static_cast<unsigned long long>(st->calls),
            std::string(InfoOf(runs).name).c_str());
  }
  st->seen = found;
  // A finding that would change the regime is checked soon.
  if (found != st->found) period = kMinPeriod;
  st->next_probe = st->calls + period;
  st->last_exit = 0;
  st->after_barrier = 0;
  st->last_probe_ns = clock::ElapsedNs(t0, clock::Now());
}

}  // namespace colltune::shim
