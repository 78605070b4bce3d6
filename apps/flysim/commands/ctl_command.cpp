// flysim ctl: the command-line client of the control API. It finds the
// service through the control.* keys, sends one request and prints the answer.
// Exit codes: 0 done, 1 refused or no answer, 2 bad usage (here or as the service says).
#include <fmt/format.h>
#include <httplib.h>

#include <iostream>

#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/service/control_json.hpp"
#include "apps/flysim/service/control_client.hpp"
#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/service/cost_table.hpp"
#include "apps/flysim/options/ctl_args.hpp"
#include "messages/control_json.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
constexpr const char* kCtlUsage =
    "flysim ctl REQUEST [--json] [--control.port=P] [--control.bind=HOST] [--control.token-file=FILE] [--config=FILE]\n"
    "  requests:\n"
    "    status                           where the run is, its pace, engine, spikes (--json: the raw JSON)\n"
    "    swap cpu [--threads=N]           move the run to the CPU pool engine (N threads; default engine.threads)\n"
    "    swap cuda                        move the run to the CUDA engine\n"
    "    checkpoint                       write a checkpoint at the next boundary\n"
    "    stimulus [--group=NAME] [--rate=HZ] [--ids=FILE] [--kick=ID@MS ...] [--silence=FILE] [--silence-mode=M]\n"
    "                                     set the Poisson rate; replace the Poisson set (root IDs, one per line);\n"
    "                                     with --group, of group NAME (a new group needs both; --ids= with no\n"
    "                                     file removes it); kick neuron ID MS ms after the boundary where the\n"
    "                                     command applies; replace the silenced set (--silence= with no file:\n"
    "                                     unsilence all); silence mode outgoing or both\n"
    "    pause | resume | stop";
constexpr const char* kCtlDescription =
    "Sends one request to a running `flysim serve` and prints its answer; a command is answered once it took effect, "
    "with the boundary (trial, step) where it did. Exit code 0: done; 1: refused by the service, or no service answered; "
    "2: bad usage. The control.* keys are those of flysim serve, and a config file of flysim serve is accepted as it is "
    "(its other keys are ignored; on the command line they are refused).";

// The keys of a serve config file are accepted, so one file serves both commands.
std::vector<OptionSpec> ctl_options() { return serve_options(); }

// What --help shows: only the keys flysim ctl reads.
std::vector<OptionSpec> ctl_help_options() {
  std::vector<OptionSpec> specs = control_options(kDefaultControlPort);
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}

void refuse_serve_only_keys_on_the_command_line(const Options& o) {
  std::vector<OptionSpec> serve_only = run_options();
  serve_only.push_back(web_dir_option());
  for (const OptionSpec& spec : serve_only)
    for (const std::string& key : o.keys_of(spec))
      if (key != "log.level" && o.given(key) && o.origin(key) == "command line")
        o.reject(key, "is an option of flysim serve; flysim ctl reads it only from a config file, and ignores it");
}

// One request: GET /status or POST /<action>.
httplib::Result send(const ControlEndpoint& s, const CtlRequest& r) {
  if (r.action == "status") return control_request(s, "/status", nullptr);
  const std::string body = command_body_json(r.command);
  return control_request(s, "/" + r.action, &body);
}

std::string or_none(const std::string& cpus) { return cpus.empty() ? "-" : cpus; }

// Lag, CPU partitions, the GPU's other users, warnings and host cores per role.
void print_realtime_status(const ServiceStatus& st) {
  if (st.pace != "off")
    std::cout << fmt::format("  lag         {}, over {:.0f} s\n", lag_text(st.lag_ms, st.lag_p99_ms, st.lag_max_ms, st.max_lag_ms),
                             st.window_s);
  if (st.engine_cores_needed > 0)
    std::cout << fmt::format("  keeping up  the engine needs {:.2f} cores to hold the pace ({} threads, measured)\n",
                             st.engine_cores_needed, st.threads);
  std::cout << fmt::format("  cpus        engine {}, plasticity {}, other {}{}\n", or_none(st.cpus_engine), or_none(st.cpus_plasticity),
                           or_none(st.cpus_other), st.cpus_freed.empty() ? "" : "; freed by the CUDA engine: " + st.cpus_freed);
  if (!st.gpu_note.empty()) std::cout << fmt::format("  gpu         {}\n", st.gpu_note);
  for (const GpuProcess& p : st.gpu_neighbours)
    std::cout << fmt::format("              GPU {}: pid {} {} {}\n", p.gpu, p.pid, p.name.empty() ? "(name unknown)" : p.name,
                             p.used_MiB >= 0 ? fmt::format("{:.0f} MiB", p.used_MiB) : "(memory not reported)");
  for (const std::string& w : st.warnings) std::cout << fmt::format("  warning     {}\n", w);
  if (!st.cost.roles.empty()) std::cout << "  host cores per role:\n" << cost_table(st.cost, "    ");
}

// The groups and silencing after the default group: "; group bitter: 5 at 80 Hz; 21 silenced (both)".
std::string stimulus_extras(const ServiceStatus& st) {
  std::string text;
  for (const StatusGroup& g : st.groups) text += fmt::format("; group {}: {} at {} Hz", g.name, g.neurons, g.rate_Hz);
  if (st.silenced_neurons > 0) text += fmt::format("; {} silenced ({})", st.silenced_neurons, st.silence_mode);
  return text;
}

void print_status(const ServiceStatus& st, const std::string& where) {
  const double per_sim = st.wall_per_simulated;
  std::cout << fmt::format(
      "flysim serve at {}: {}\n"
      "  position    trial {} step {} (of {} trial{})\n"
      "  simulated   {:.3f} s in {:.3f} s of wall time\n"
      "  speed       {:.4f} wall s per simulated s{}\n"
      "  pace        {}{}\n"
      "  engine      {}\n"
      "  threads     {}\n"
      "  host cpu    {:.2f} s, {:.3f} cores\n"
      "  spikes      {} ({:.1f} per simulated s)\n"
      "  stimulus    {} Poisson neurons at {} Hz{}\n"
      "  shards      {}\n"
      "  checkpoint  {}\n",
      where, st.state, st.trial, st.step, st.trials, st.trials == 1 ? "" : "s", st.simulated_s, st.wall_s, per_sim,
      per_sim > 0 ? fmt::format(" ({:.2f}x real time)", 1.0 / per_sim) : "", st.pace,
      st.pace == "off" ? "" : fmt::format(", {:.1f} ms behind", st.lag_ms), st.engine,
      st.threads > 0 ? std::to_string(st.threads) : "none (not a CPU pool)", st.host_cpu_s, st.host_cores, st.spikes,
      st.spikes_per_simulated_s, st.poisson_neurons, st.stimulus_rate_Hz, stimulus_extras(st), st.shards > 0 ? std::to_string(st.shards) : "off",
      st.last_checkpoint.empty() ? "none yet" : st.last_checkpoint);
  print_realtime_status(st);
}

void print_reply(const std::string& action, const LiveReply& reply) {
  std::cout << fmt::format("{}: {} (at trial {} step {})\n", action, reply.message, reply.trial, reply.step);
  if (!reply.file.empty()) std::cout << fmt::format("  file        {}\n", reply.file);
}

// The service's JSON decoded; JSON that is not the service's is a failure, not a crash.
template <class Decode>
auto decoded(Decode decode) {
  try {
    return decode();
  } catch (const std::runtime_error& e) {
    throw control_failure(e.what());
  }
}

int answer(const ControlEndpoint& s, const CtlRequest& r, const httplib::Response& res) {
  switch (res.status) {
    case 200: break;
    case 400: throw input_error("the service refused the request: " + error_from_json(res.body));
    case 401:
      throw control_failure(s.token.empty() ? "the service needs a token: give --control.token-file=FILE, the file flysim serve reads"
                                        : "the service refused the token of control.token-file: is it the file flysim serve reads?");
    case 409: {
      if (r.json) std::cout << res.body << "\n";
      throw control_failure(fmt::format("{} refused: {}", r.action, decoded([&] { return reply_from_json(res.body); }).message));
    }
    default: throw control_failure(fmt::format("{} answered HTTP {}: {}", s.where(), res.status, error_from_json(res.body)));
  }
  if (r.json) {
    std::cout << res.body << "\n";
    return 0;
  }
  if (r.action == "status") print_status(decoded([&] { return status_from_json(res.body); }), s.where());
  else print_reply(r.action, decoded([&] { return reply_from_json(res.body); }));
  return 0;
}
}  // namespace

int ctl_command(const std::vector<std::string>& args) {
  if (print_help_if_asked(args, kCtlUsage, kCtlDescription, ctl_help_options())) return 0;
  const CtlRequest request = parse_ctl_args(args);
  const Options o = Options::parse(ctl_options(), request.option_args);
  refuse_serve_only_keys_on_the_command_line(o);
  configure_logging(o);
  const ControlEndpoint service = control_endpoint(o);
  try {
    return answer(service, request, send(service, request).value());
  } catch (const control_failure& e) {
    std::cerr << "flysim ctl: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace flysim::app
