// flysim: the command-line program. Dispatches to a subcommand; turns a user error
// into one line on stderr and exit code 2, and anything else into exit code 3.
#include <malloc.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/process/thread_caches.hpp"
#include "model/errors.hpp"

namespace {
constexpr const char* kUsage =
    "usage: flysim <command> [--key=value ...]\n"
    "\n"
    "flysim runs the leaky integrate-and-fire model of the whole adult fruit-fly brain\n"
    "(Shiu et al., Nature 2024) on the FlyWire connectome or a synthetic stand-in.\n"
    "\n"
    "commands:\n"
    "  run        run a simulation (with no options: 21 sugar GRNs at 150 Hz for 1 s\n"
    "             on the synthetic FlyWire-scale network, generated and cached on first use)\n"
    "  serve      the same as a service: paced to real time, until stopped, steered\n"
    "             through the control API (flysim ctl), every command journaled\n"
    "  generate   write a synthetic FlyWire-scale network as FlyWire CSV files\n"
    "  doctor     can this machine run the engine asked for? (CUDA, driver, device, CPUs)\n"
    "  checkpoint inspect FILE: print a checkpoint's header, position and plan\n"
    "  shard      serve plasticity shards to runs in other processes (plasticity.nodes)\n"
    "  ctl        talk to a running service: status, swap, checkpoint, stimulus, pause, resume, stop\n"
    "  cost       host cores per role of a running service (like pidstat -t, by role)\n"
    "  sweep      a dose-response experiment: trials at each stimulus rate, the readouts'\n"
    "             mean rate, sd and sem per rate (CSV) and their plot\n"
    "  screen     many experiments (Poisson groups, silencing) in one process: rates,\n"
    "             readouts and spikes tables in the reference's schema, resumable, in parts\n"
    "  worker     run the experiments of screens in other processes (screen.nodes)\n"
    "  version    which flysim this is: its version and the commit it was built from\n"
    "  help       this text\n"
    "\n"
    "`flysim <command> --help` lists a command's options. Options can also come from a\n"
    "file: --config=FILE with 'key = value' lines (the command line wins).\n"
    "Examples:\n"
    "  flysim run\n"
    "  flysim run --stimulus.rate=200 --run.trials=30 --output.rates=rates.csv\n"
    "  flysim sweep --sweep.rates=10:200:10 --run.trials=30 --output.dir=sweep\n"
    "  flysim screen --screen.silence-each=ids.txt --screen.baseline=true --output.dir=screen\n"
    "  flysim worker --port=7100   (then: flysim screen ... --screen.nodes=127.0.0.1:7100,local)\n"
    "  flysim generate --output.neurons=n.csv --output.connectivity=c.csv\n"
    "  flysim run --checkpoint.every-ms=500 --checkpoint.dir=ckpt\n"
    "  flysim run --restore=ckpt/flysim-trial0000-step000005004.ckpt\n"
    "  flysim checkpoint inspect ckpt/flysim-trial0000-step000005004.ckpt\n"
    "  flysim run --plasticity.enabled=true --plasticity.shards=4 --plasticity.weights-out=w.csv\n"
    "  flysim shard --port=7000   (then: flysim run --plasticity.enabled=true --plasticity.nodes=127.0.0.1:7000)\n"
    "  flysim ctl status\n"
    "  flysim ctl swap cpu --threads=2\n"
    "  flysim cost --url=http://127.0.0.1:7460 --window=30\n";
}  // namespace

int main(int argc, char** argv) {
  // A service lives long: its threads' caches of freed blocks would hold memory for good
  // (apps/flysim/process/thread_caches.cpp).
  if (argc > 1 && std::string(argv[1]) == "serve") flysim::app::exec_without_thread_caches(argv);
  // A fixed mmap threshold: a swapped-out engine's large blocks go back to the system (docs/BENCHMARKS.md, "Memory").
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // One malloc arena for all threads: per-thread arenas keep what swaps and HTTP threads free (docs/WATCH.md).
  mallopt(M_ARENA_MAX, 1);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::cout << "flysim " << flysim::app::build_version() << "\n";
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return flysim::app::run_or_serve(args, flysim::app::RunMode::run);
    if (command == "serve") return flysim::app::run_or_serve(args, flysim::app::RunMode::serve);
    if (command == "generate") return flysim::app::generate_command(args);
    if (command == "doctor") return flysim::app::doctor_command(args);
    if (command == "checkpoint") return flysim::app::checkpoint_command(args);
    if (command == "shard") return flysim::app::shard_command(args);
    if (command == "ctl") return flysim::app::ctl_command(args);
    if (command == "cost") return flysim::app::cost_command(args);
    if (command == "sweep") return flysim::app::sweep_command(args);
    if (command == "screen") return flysim::app::screen_command(args);
    if (command == "worker") return flysim::app::worker_command(args);
    std::cerr << "flysim: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const flysim::interrupted& e) {
    std::cerr << "flysim: " << e.what() << "; nothing was written\n";
    return 128 + e.signal();
  } catch (const flysim::input_error& e) {
    std::cerr << "flysim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flysim: internal error: " << e.what() << "\n";
    return 3;
  }
}
