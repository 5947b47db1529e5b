#include "cli/tuning_file/ompi_rules.h"

#include <climits>
#include <sstream>

namespace colltune::cli::tuning_file {

std::string OmpiRules(const std::vector<std::pair<Collective, std::vector<Row>>>& colls,
                      const std::string& header) {
  std::ostringstream out;
  out << header;
  out << colls.size() << "  # collectives\n";
  for (const auto& [c, rows] : colls) {
    out << "\n" << kFileNames[IndexOf(c)].ompi_id << "  # " << InfoOf(c).name << "\n";
    out << rows.size() << "  # communicator sizes\n";
    for (const Row& row : rows) {
      // Open MPI reads sizes as signed longs: a range starting beyond is
      // never reached by a real call and is left out.
      std::vector<const Piece*> pieces;
      for (const Piece& p : row.pieces) {
        if (p.min <= static_cast<uint64_t>(LONG_MAX)) pieces.push_back(&p);
      }
      out << row.lo << " " << pieces.size() << "  # communicators of "
          << SizesText(row.lo, row.hi) << ": " << SectionsText(row.sections) << "\n";
      for (const Piece* p : pieces) {
        out << "  " << p->min << " " << (p->native ? OmpiNumber(c, *p->native) : 0) << " "
            << OmpiFanoutSegsize(p->native) << "  # "
            << (p->native ? InfoOf(*p->native).name : "Open MPI's fixed decision")
            << "\n";
      }
    }
  }
  return out.str();
}

}  // namespace colltune::cli::tuning_file
