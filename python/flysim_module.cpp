// The bindings of the Python module's compiled part, flysim._flysim (flysim_run.hpp
// does the work; the package python/flysim/ is the API users call).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "apps/flysim/options/cuda_devices_option.hpp"
#include "apps/flysim/options/network_options.hpp"
#include "apps/flysim/process/build_version.hpp"
#include "io/stimulus_files.hpp"
#include "kernels/engine_factory.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"
#include "model/rate_stats.hpp"
#include "model/snapshot.hpp"
#include "python/flysim_run.hpp"
#include "io/printed_times.hpp"

namespace py = pybind11;
using namespace flysim;

namespace {

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

EngineKind engine_kind(const std::string& name) {
  if (name == "cpu") return EngineKind::cpu;
  if (name == "cuda") return EngineKind::cuda;
  throw input_error("engine='" + name + "' must be 'cpu' or 'cuda'");
}

// run's arguments as runs.py (_run_args) passes them, one tuple per run.
using Groups = std::vector<std::tuple<std::string, std::vector<int64_t>, double>>;
using RunArgs = std::tuple<Groups, std::string, std::vector<std::pair<int32_t, int64_t>>, std::vector<int64_t>, std::string,
                           double, int32_t, uint64_t, std::string, unsigned, int32_t, LifParams>;

// Ctrl-C (or another signal handler's exception) ends a run at an epoch boundary.
void check_python_signals() {
  py::gil_scoped_acquire locked;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

python::RunRequest request_of(const RunArgs& args) {
  const auto& [groups, kicks_file, kicks, silenced, silence_mode, duration_ms, trials, seed, engine, threads, batch, params] = args;
  python::RunRequest r;
  for (const auto& [name, ids, rate] : groups) r.groups.push_back({name, ids, rate});
  r.kicks_file = kicks_file;
  r.kicks = kicks;
  r.silenced = silenced;
  r.silence_mode = silence_mode;
  r.duration_ms = duration_ms;
  r.trials = trials;
  r.seed = seed;
  r.kind = engine_kind(engine);
  r.threads = threads;
  r.batch = batch;
  r.params = params;
  r.poll = check_python_signals;
  return r;
}

py::dict dict_of(const python::RunSpikes& spikes) {
  py::dict out;
  out["trial"] = to_numpy(spikes.trial);
  out["step"] = to_numpy(spikes.step);
  out["neuron"] = to_numpy(spikes.neuron);
  out["t"] = to_numpy(spikes.t);
  out["steps_per_trial"] = spikes.steps_per_trial;
  out["trial_s"] = spikes.trial_s;
  out["trial_ms"] = reported_ms(spikes.trial_s);
  out["batch"] = spikes.batch;
  out["wall_s"] = spikes.wall_s;
  out["engine"] = spikes.engine;
  out["engine_reused"] = spikes.engine_reused;
  out["late_kicks"] = spikes.late_kicks;
  return out;
}

}  // namespace

PYBIND11_MODULE(_flysim, m) {
  m.doc() = "flysim's compiled core; use the flysim package (python/flysim/)";
  py::register_exception<input_error>(m, "InputError", PyExc_ValueError);
  // The bounds the program takes, for the Python layer to check before the binding narrows.
  m.attr("MAX_TRIALS") = kMaxTrials;
  m.attr("MAX_THREADS") = kMaxPoolThreads;
  m.attr("MAX_ENGINES") = app::kMaxEnginesPerDevice;
  m.attr("SCREEN_ENGINES") = app::kScreenEnginesPerDevice;
  // Which flysim this module is, as `flysim version` says it.
  m.attr("BUILD_VERSION") = app::build_version();

  py::class_<LifParams>(m, "LifParams", "The model's parameters (model/lif_params.hpp), with their defaults")
      .def(py::init<>())
      .def_readwrite("dt_ms", &LifParams::dt_ms)
      .def_readwrite("v0_mV", &LifParams::v0_mV)
      .def_readwrite("v_reset_mV", &LifParams::v_reset_mV)
      .def_readwrite("v_threshold_mV", &LifParams::v_threshold_mV)
      .def_readwrite("tau_m_ms", &LifParams::tau_m_ms)
      .def_readwrite("tau_g_ms", &LifParams::tau_g_ms)
      .def_readwrite("t_ref_ms", &LifParams::t_ref_ms)
      .def_readwrite("delay_ms", &LifParams::delay_ms)
      .def_readwrite("w_syn_mV", &LifParams::w_syn_mV)
      .def_readwrite("f_poi", &LifParams::f_poi)
      .def_readwrite("r_poi_Hz", &LifParams::r_poi_Hz);

  m.def("sugar_ids_file", &app::sugar_ids_file, "The bundled sugar-sensing neurons' root IDs file");
  m.def("mn9_root_id", [] { return app::kMn9RootId; }, "MN9's root ID: the default readout");
  m.def(
      "rate_stats",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& per_trial) {
        if (per_trial.ndim() != 2 || per_trial.shape(1) < 1)
          throw input_error("rate_stats takes rates as rows x trials, at least one trial");
        const auto rows = per_trial.shape(0), trials = per_trial.shape(1);
        py::array_t<double> mean(rows), sd(rows), sem(rows);
        for (py::ssize_t i = 0; i < rows; ++i) {
          const double* row = per_trial.data(i, 0);
          const RateStats s = rate_stats(std::vector<double>(row, row + trials));
          mean.mutable_at(i) = s.mean;
          sd.mutable_at(i) = s.sd;
          sem.mutable_at(i) = s.sem;
        }
        return py::make_tuple(mean, sd, sem);
      },
      "Each row's mean, sample sd and sem over its trials, as the program's tables compute them (model/rate_stats.hpp)");
  m.def("cuda_compiled_in", &cuda_compiled_in, "Whether this module was built with the CUDA engine");
  m.def(
      "read_id_list",
      [](const std::string& path) {
        std::vector<int64_t> ids;
        for (const ListedId& listed : read_id_list(path)) ids.push_back(listed.id);
        return to_numpy(ids);
      },
      py::arg("path"), "Root IDs of an ID list file (one per line, '#' comments)");

  py::class_<python::NetworkSession, std::shared_ptr<python::NetworkSession>>(m, "NetworkSession")
      .def_property_readonly("ids", [](const python::NetworkSession& s) { return to_numpy(s.network().root_ids); })
      .def_property_readonly("description", [](const python::NetworkSession& s) { return s.network().description; })
      .def_property_readonly("connections", [](const python::NetworkSession& s) { return s.network().connection_count(); })
      .def("__len__", [](const python::NetworkSession& s) { return s.network().neuron_count(); })
      .def(
          "index_of",
          [](const python::NetworkSession& s, const std::vector<int64_t>& ids) {
            const std::vector<uint32_t> idx = s.indices_of(ids);
            return to_numpy(std::vector<int64_t>(idx.begin(), idx.end()));
          },
          py::arg("root_ids"))
      .def(
          "run",
          [](python::NetworkSession& s, const Groups& groups, const std::string& kicks_file,
             const std::vector<std::pair<int32_t, int64_t>>& kicks, const std::vector<int64_t>& silenced,
             const std::string& silence_mode, double duration_ms, int32_t trials, uint64_t seed, const std::string& engine,
             unsigned threads, int32_t batch, const LifParams& params) {
            const python::RunRequest r = request_of(RunArgs{groups, kicks_file, kicks, silenced, silence_mode, duration_ms,
                                                            trials, seed, engine, threads, batch, params});
            python::RunSpikes spikes;
            {
              py::gil_scoped_release unlocked;
              spikes = s.run(r);
            }
            return dict_of(spikes);
          },
          py::arg("groups"), py::arg("kicks_file"), py::arg("kicks"), py::arg("silenced"), py::arg("silence_mode"),
          py::arg("duration_ms"), py::arg("trials"), py::arg("seed"), py::arg("engine"), py::arg("threads"),
          py::arg("batch"), py::arg("params"))
      .def(
          "run_many",
          [](python::NetworkSession& s, const std::vector<RunArgs>& runs, const std::vector<std::string>& names,
             unsigned engines, const py::object& progress) {
            std::vector<python::RunRequest> requests;
            for (const RunArgs& args : runs) requests.push_back(request_of(args));
            std::function<void(std::size_t)> done;
            if (!progress.is_none())
              done = [&progress](std::size_t n) {
                py::gil_scoped_acquire locked;
                progress(n);
              };
            std::vector<python::RunSpikes> spikes;
            {
              py::gil_scoped_release unlocked;
              spikes = s.run_many(requests, names, engines, check_python_signals, done);
            }
            py::list out;
            for (const python::RunSpikes& one : spikes) out.append(dict_of(one));
            return out;
          },
          py::arg("runs"), py::arg("names"), py::arg("engines"), py::arg("progress") = py::none(),
          "run's arguments for each of several runs, on `engines` engines at once; progress(n) as n of them are done")
      .def(
          "check",
          [](const python::NetworkSession& s, const RunArgs& args) { s.check(request_of(args)); }, py::arg("run"),
          "What run checks before it runs, for run's arguments (an InputError naming the argument); nothing runs")
      .def_property_readonly("kept_engines", [](python::NetworkSession& s) { return s.kept_engines(); })
      .def("release_engines", [](python::NetworkSession& s) {
        py::gil_scoped_release unlocked;
        s.release_engines();
      });
  m.attr("KEPT_SETTINGS") = python::NetworkSession::kKeptSettings;

  m.def(
      "load_network",
      [](const std::map<std::string, std::string>& options, const std::function<void(const std::string&)>& log) {
        return std::make_shared<python::NetworkSession>(python::load_network(options, log));
      },
      py::arg("options"), py::arg("log"),
      "The network as `flysim run` loads it, from {network.* option: value} (those not given keep their defaults)");
}
