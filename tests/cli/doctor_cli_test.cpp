// `flysim doctor`: what it reports about the engines, and its exit code when the cuda
// engine is asked for and cannot run.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_support.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/cpu/cpu_features.hpp"
#include "kernels/version.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

class DoctorCli : public ::testing::Test {
 protected:
  // `flysim doctor ARGS` with FLY_LIF_CUDA set to `fly_lif_cuda` (empty: unset).
  CliResult doctor(const std::string& fly_lif_cuda, const std::string& args) const {
    if (fly_lif_cuda.empty())
      ::unsetenv("FLY_LIF_CUDA");
    else
      ::setenv("FLY_LIF_CUDA", fly_lif_cuda.c_str(), 1);
    const CliResult r =
        run_flysim("doctor --network.cache-dir=" + dir_.path("cache") + " " + args, dir_.path("out"), dir_.path("err"));
    ::unsetenv("FLY_LIF_CUDA");
    return r;
  }
  ScratchDir dir_{"flysim-doctor"};
};

TEST_F(DoctorCli, ReportsTheEnginesAndPassesWhenTheCpuEngineIsAskedFor) {
  const CliResult r = doctor("", "--engine.kind=cpu --engine.threads=3");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(cuda_compiled_in() ? "cuda compiled in   yes" : "cuda compiled in   no"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(engine.threads = 3)"), std::string::npos) << r.out;
  const CliResult bad = doctor("", "--engine.threads=-4");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("option engine.threads='-4' must be 1..1024"), std::string::npos) << bad.err;
  EXPECT_NE(r.out.find("engine asked for   cpu (engine.kind)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::string("kernel             ") + kKernelVersion), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kernels::cpu_has_avx512() ? "cpu lanes          AVX-512"
                       : kernels::cpu_has_avx2() ? "cpu lanes          AVX2 (no AVX-512"
                                                 : "cpu lanes          no AVX2"),
            std::string::npos)
      << r.out;
  const std::string problem = probe_cuda_backend(0).problem;
  EXPECT_NE(r.out.find(problem.empty() ? "cuda engine        usable" : "cuda engine        unusable: " + problem),
            std::string::npos)
      << r.out;
}

// Asked for through FLY_LIF_CUDA=1: exit 1 with the reason where CUDA cannot run, 0 where it can.
TEST_F(DoctorCli, FailsWhenTheCudaEngineIsAskedForAndCannotRun) {
  const CliResult r = doctor("1", "");
  EXPECT_NE(r.out.find("engine asked for   cuda (from FLY_LIF_CUDA)"), std::string::npos) << r.out;
  const std::string problem = probe_cuda_backend(0).problem;
  if (problem.empty()) {
    EXPECT_EQ(r.code, 0) << r.err;
    return;
  }
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the cuda engine is asked for but cannot run: " + problem), std::string::npos) << r.err;
}

// A build without CUDA refuses FLY_LIF_CUDA=1 in a run with one line, never runs on the CPU.
TEST_F(DoctorCli, ARunWithoutCudaCompiledInRefusesFlyLifCuda) {
  if (cuda_compiled_in()) GTEST_SKIP() << "this build has CUDA";
  ::setenv("FLY_LIF_CUDA", "1", 1);
  const CliResult r = run_flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                                     data_path("net2000/connectivity.csv") + " --network.cache-dir=" + dir_.path("cache") +
                                     " --stimulus.ids=" + data_path("net2000/stimulated.txt") + " --run.duration-ms=10",
                                 dir_.path("out"), dir_.path("err"));
  ::unsetenv("FLY_LIF_CUDA");
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("this flysim was built without CUDA"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("spikes"), std::string::npos) << r.out;
}

TEST_F(DoctorCli, BadCudaDeviceNamesTheOption) {
  expect_one_line_error(doctor("", "--engine.cuda-device=-1"),
                        "command line: option engine.cuda-device='-1' must be 0..1023 (a CUDA device number)");
}

}  // namespace
}  // namespace flysim::test
