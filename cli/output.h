// Formatting shared by the `colltune` commands: one way to print sizes,
// speedups, contexts and rules, in text and in JSON.
#ifndef COLLTUNE_CLI_OUTPUT_H_
#define COLLTUNE_CLI_OUTPUT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "proto/colltune.pb.h"

namespace colltune::cli {

// Prints "colltune: <message>" on stderr; returns exit code 1.
int Fail(const absl::Status& s);

// "inf" for no upper bound (-1 in the proto), else the number.
std::string Bytes(int64_t max_bytes);
// "1.47x", or "-" when there is none.
std::string Speedup(double s);
// p-values: "<1e-4" below that, else 4 decimals; "-" when not applicable.
std::string PValue(double p);

nlohmann::json ContextJson(const v1::Context& c);
nlohmann::json RuleJson(const v1::Rule& r);

// A section's rules as a text table with their evidence.
void PrintRules(const v1::TableSection& section);

}  // namespace colltune::cli

#endif  // COLLTUNE_CLI_OUTPUT_H_
