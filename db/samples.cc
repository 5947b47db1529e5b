#include "db/samples.h"

#include <cstdint>
#include <cstring>

namespace colltune::db {

std::string EncodeSamples(const std::vector<double>& samples) {
  std::string out(samples.size() * 4, '\0');
  for (size_t i = 0; i < samples.size(); ++i) {
    float f = static_cast<float>(samples[i]);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<char>(bits >> (8 * b));
  }
  return out;
}

std::vector<double> DecodeSamples(const std::string& blob) {
  std::vector<double> out(blob.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(blob[i * 4 + b]))
              << (8 * b);
    }
    float f;
    memcpy(&f, &bits, 4);
    out[i] = f;
  }
  return out;
}

}  // namespace colltune::db
