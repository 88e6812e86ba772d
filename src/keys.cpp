// `ibcc keys`: the one key table, as a listing, the reference tables or a JSON Schema.
#include <iostream>
#include <memory>

#include "cli.h"
#include "common/output_files.h"
#include "net/scenario/import_nvidia_cc.h"
#include "net/scenario/import_opensm.h"
#include "net/scenario/scenario_keys.h"

namespace ibcc::cli {

Command add_keys(CLI::App& app) {
  struct Options {
    std::string format = "list", out;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "keys", "Every scenario key with its type, range and default (the one key table the reader, "
              "docs/configuration.md and the JSON Schema come from)");
  auto* fmt = cmd->add_option_group("format", "What to print (default: one line per key)");
  fmt->add_flag_callback("--markdown", [o] { o->format = "markdown"; }, "The reference tables of docs/configuration.md");
  fmt->add_flag_callback("--json-schema", [o] { o->format = "schema"; }, "JSON Schema of a scenario file");
  fmt->add_flag_callback("--opensm", [o] { o->format = "opensm"; },
                         "The congestion-control options of opensm.conf and the key each sets, as JSON (what "
                         "--opensm-conf reads and ibcc tune's opensm.conf is written with)");
  fmt->add_flag_callback("--nvidia-cc", [o] { o->format = "nvidia"; },
                         "The fields of NVIDIA's congestion-control policy file and the key each sets, as JSON (what "
                         "--opensm-conf reads with mlnx_congestion_control and ibcc tune writes)");
  fmt->require_option(0, 1);
  cmd->add_option("--out", o->out, "Write to this file instead of the standard output");
  return {cmd, [o] {
            const std::string text = o->format == "markdown" ? ibcc::net::keys_markdown()
                                     : o->format == "schema" ? ibcc::net::keys_json_schema()
                                     : o->format == "opensm" ? ibcc::net::opensm_options_json()
                                     : o->format == "nvidia" ? ibcc::net::nvidia_fields_json()
                                                             : ibcc::net::keys_listing();
            try {
              if (o->out.empty()) {
                std::cout << text;  // (sc_main checks that it reached the standard output)
              } else {
                ibcc::write_file_atomic(o->out, text);
              }
            } catch (const ibcc::OutputError& e) {
              std::cerr << "ibcc keys: error: " << e.what() << "\n";
              return kFailed;
            }
            return kOk;
          }};
}

}  // namespace ibcc::cli
