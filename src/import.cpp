// `ibcc import`: what users already have (opensm.conf's cc_* options, ibnetdiscover output)
// converted to scenario YAML.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"
#include "common/output_files.h"
#include "net/scenario/import_ibnetdiscover.h"
#include "net/scenario/import_opensm.h"

namespace ibcc::cli {

Command add_import(CLI::App& app) {
  struct Options {
    std::string format, file, out, lfts;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Convert what users already have: `opensm FILE` (the cc_* options of opensm.conf) to a cc: section; "
                "`ibnetdiscover FILE [--lfts DUMP_LFTS]` to a complete scenario");
  cmd->add_option("format", o->format, "opensm or ibnetdiscover")
      ->required()
      ->check(CLI::IsMember({"opensm", "ibnetdiscover"}));
  cmd->add_option("file", o->file, "The file to convert")->required()->check(CLI::ExistingFile);
  cmd->add_option("--lfts", o->lfts, "ibnetdiscover: the switches' forwarding tables (dump_lfts output); "
                                     "without it routing is computed (up*/down*)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "Write the YAML here (default: standard output)");
  return {cmd, [o] {
            try {
              std::string yaml;
              if (o->format == "opensm") {
                yaml = ibcc::net::opensm_as_yaml(ibcc::net::import_opensm_conf(o->file));
              } else {
                const auto imp = ibcc::net::import_ibnetdiscover(o->file, o->lfts);
                yaml = imp.yaml;
                std::cerr << "ibcc import: " << imp.switches << " switches, " << imp.hcas << " HCAs, " << imp.links
                          << " links"
                          << (o->lfts.empty() ? ", routing up*/down*"
                                              : ", " + std::to_string(imp.lft_entries) + " LFT entries")
                          << "\n";
              }
              if (o->out.empty()) {
                std::cout << yaml;
              } else {
                const std::filesystem::path parent = std::filesystem::path(o->out).parent_path();
                std::error_code ec;
                if (!parent.empty()) std::filesystem::create_directories(parent, ec);
                try {
                  ibcc::write_file_atomic(o->out, yaml);
                } catch (const ibcc::OutputError& e) {
                  std::cerr << "ibcc import: error: " << e.what() << "\n";
                  return kFailed;
                }
              }
              return kOk;
            } catch (const std::exception& e) {
              std::cerr << "ibcc import: error: " << e.what() << "\n";
              return kBadInput;
            }
          }};
}

}  // namespace ibcc::cli
