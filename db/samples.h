// How the store keeps a point's repetitions: little-endian float32, half
// the space of doubles and far more precision than latencies have.
#ifndef COLLTUNE_DB_SAMPLES_H_
#define COLLTUNE_DB_SAMPLES_H_

#include <string>
#include <vector>

namespace colltune::db {

std::string EncodeSamples(const std::vector<double>& samples);
std::vector<double> DecodeSamples(const std::string& blob);

}  // namespace colltune::db

#endif  // COLLTUNE_DB_SAMPLES_H_
