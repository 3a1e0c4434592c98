# lit configuration for ddp-scenario and the ddpharness library (ctest
# `harness-scenarios`, or directly:
#   python3 /usr/lib/llvm-16/build/utils/lit/lit.py -sv test/harness/scenarios).
# Real LibTorch ranks over Gloo on the CPU. GPU tests are marked
# `REQUIRES: cuda`: lit reports them UNSUPPORTED, by name, where no GPU is
# usable (the project's machines) or the LibTorch has no CUDA, and prints
# which of the two; never as passed.
import os
import shutil
import subprocess
import lit.formats

config.name = "ddp-harness-scenarios"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs", "tools", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)

src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
obj = os.path.abspath(lit_config.params.get("build_dir",
                                            os.path.join(src, "build")))
llvm_tools_dir = lit_config.params.get("llvm_tools_dir", "/usr/lib/llvm-16/bin")
# The LibTorch 2.x lane (scripts/libtorch2-harness): the harness built in a
# Debian trixie root against LibTorch 2.6 (--param libtorch2_harness=BUILD
# --param libtorch2_root=ROOT); its programs run inside that root, through
# scripts/libtorch2-root --run, the checkout visible at its own path.
lt2_build = lit_config.params.get("libtorch2_harness")
lt2_root = lit_config.params.get("libtorch2_root")
if lt2_build:
    config.name += "-libtorch2"
    config.available_features.add("libtorch2-harness")
    in_root = [os.path.join(src, "scripts", "libtorch2-root"), "--run",
               os.path.abspath(lt2_root), "--"]
    harness_dir = os.path.abspath(lt2_build)
    config.test_exec_root = os.path.join(obj, "test", "harness",
                                         "scenarios-libtorch2")
else:
    in_root = []
    harness_dir = obj
    config.test_exec_root = os.path.join(obj, "test", "harness", "scenarios")

config.environment["PATH"] = os.pathsep.join(
    [llvm_tools_dir, os.environ.get("PATH", "/usr/bin:/bin")])
config.environment["TERM"] = "dumb"
config.environment["TMPDIR"] = os.path.join(config.test_exec_root, "tmp")
# One thread per rank, as torchrun sets with several ranks on a host.
config.environment["OMP_NUM_THREADS"] = "1"

scenario_file = os.path.join(harness_dir, "libexec", "ddp-scenario")
if not os.path.exists(scenario_file):
    lit_config.fatal("ddp-scenario is not built (%s): LibTorch missing?" %
                     scenario_file)
scenario = " ".join(in_root + [scenario_file])


def gpu_usable():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def libtorch_cuda():
    """Whether the LibTorch ddp-scenario was built against can use the GPU:
    a GPU with a CPU-only LibTorch cannot run the CUDA tests either."""
    try:
        return subprocess.run(in_root + [scenario_file, "--cuda-usable"],
                              capture_output=True,
                               timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if not gpu_usable():
    lit_config.note("CUDA tests unsupported: no GPU (nvidia-smi -L fails)")
elif not libtorch_cuda():
    lit_config.note("CUDA tests unsupported: a GPU, but the LibTorch "
                    "ddp-scenario was built against has no usable CUDA device")
else:
    config.available_features.add("cuda")

# Open MPI's mpirun (Debian's openmpi-bin) starts ranks for `run --launcher
# mpirun`; not inside the LibTorch 2.x root, which has none.
if not in_root and shutil.which("mpirun"):
    config.available_features.add("mpirun")

here = os.path.dirname(__file__)
launcher_tools = os.path.join(here, "..", "launcher", "tools")
config.substitutions.extend([
    # Before %harness, which it starts with.
    ("%harness_lib", os.path.join(src, "runtime-harness", "lib")),
    ("%harness", " ".join(in_root + [os.path.join(harness_dir, "bin",
                                                  "ddp-harness")])),
    ("%ddplint", os.path.join(obj, "bin", "ddplint")),
    ("%scenario", scenario),
    ("%ddp_probe_bench", " ".join(in_root + [os.path.join(
        harness_dir, "libexec", "ddp-probe-bench")])),
    ("%tools", os.path.join(harness_dir, "test", "harness", "scenarios",
                            "tools")),
    ("%expect_exit", os.path.join(src, "test", "tools", "expect-exit")),
    ("%mock_headers", os.path.join(src, "test", "Inputs")),
    ("%json_fields", "python3 " + os.path.join(launcher_tools, "json-fields.py")),
    ("%probe_files", "python3 " + os.path.join(here, "tools", "probe-files.py")),
])
