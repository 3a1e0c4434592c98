# lit configuration for ddplint's tests (run through ctest, or directly:
#   python3 /usr/lib/llvm-16/build/utils/lit/lit.py -sv test/checkers).
import glob
import os
import shutil
import sys
import lit.formats

config.name = "ddplint"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".test"]
config.excludes = ["Inputs", "tools", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)

# The suites run from the source tree against a build directory
# (--param build_dir=..., default: build/ beside test/).
src = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
obj = os.path.abspath(lit_config.params.get("build_dir",
                                            os.path.join(src, "build")))
llvm_tools_dir = lit_config.params.get("llvm_tools_dir", "/usr/lib/llvm-16/bin")
config.test_exec_root = os.path.join(obj, "test")

config.environment["PATH"] = os.pathsep.join(
    [llvm_tools_dir, os.environ.get("PATH", "/usr/bin:/bin")])
# ddplint's cache (findings and shared preambles) stays in the build tree;
# tests that are about the cache name their own directory.
config.environment["DDPLINT_CACHE_DIR"] = os.path.join(obj, "test",
                                                        "ddplint-cache")
# Colour codes would break FileCheck patterns.
config.environment["TERM"] = "dumb"

# The clang-tidy whose major version the build's plugin was built for
# (--param llvm_version=19 with a build configured -DDDPLINT_LLVM_VERSION=19).
llvm_version = lit_config.params.get("llvm_version", "16")
plugin = os.path.join(obj, "lib", "ddplint-plugin.so")
config.environment["DDPLINT_CLANG_TIDY"] = "clang-tidy-" + llvm_version
probe = os.path.join(obj, "lib", "ddplint-vocabulary-probe.so")
# MPI, NCCL, the CUDA runtime and Boost.MPI come from the declarations the
# driver falls back on when a machine lacks them (sdk-fallback/), named with
# -isystem so that a real SDK installed on the test machine cannot change what
# the tests see.
mocks = ("-std=c++17 -isystem " + os.path.join(src, "test", "Inputs") +
         " -isystem " + os.path.join(src, "sdk-fallback"))
torch = ("-std=c++17 -DUSE_C10D_GLOO "
         "-isystem /usr/include/torch/csrc/api/include")

# LibTorch 2.x: Debian trixie's LibTorch 2.6 headers (c10d's Backend API,
# namespace-level Work), fetched into the build tree by
# scripts/libtorch2-headers, which scripts/run-tests runs (--param
# libtorch2_dir=... names another copy). Named with -isystem, as %torch_flags
# names 1.13's and as CMake names an installed LibTorch: directories given
# with -isystem are searched before /usr/include, so these win over
# bookworm's LibTorch 1.13 there.
libtorch2 = os.path.abspath(lit_config.params.get(
    "libtorch2_dir", os.path.join(obj, "libtorch2")))
torch2 = ("-std=c++17 -DUSE_C10D_GLOO -isystem " +
          os.path.join(libtorch2, "usr", "include") + " -isystem " +
          os.path.join(libtorch2, "usr", "include", "torch", "csrc", "api",
                       "include"))
if (os.path.isfile(os.path.join(libtorch2, "stamp")) and
        os.path.isfile(os.path.join(libtorch2, "usr", "include", "torch", "csrc",
                                    "api", "include", "torch", "torch.h"))):
    config.available_features.add("libtorch2")
else:
    lit_config.note("LibTorch 2.x tests unsupported: no LibTorch 2.6 headers in "
                    + libtorch2 + " (scripts/libtorch2-headers " + libtorch2 +
                    " fetches them from Debian trixie; it needs the network "
                    "once)")

# A CUDA toolkit's headers with NCCL's beside them (/usr/local/cuda*, as
# NVIDIA installs it; the project's machines have one though no GPU): the
# harness's NCCL process group is compiled against them and LibTorch 2.6's.
cuda_include = ""
for cuda in sorted(glob.glob("/usr/local/cuda*/include"), reverse=True):
    if (os.path.isfile(os.path.join(cuda, "nccl.h")) and
            os.path.isfile(os.path.join(cuda, "cuda.h"))):
        cuda_include = cuda
        config.available_features.add("cuda-headers")
        break
if not cuda_include:
    lit_config.note("NCCL compile tests unsupported: no CUDA toolkit with "
                    "nccl.h under /usr/local/cuda*/include")

config.substitutions.extend([
    ("%cuda_include", cuda_include or "/nonexistent"),
    ("%clang_tidy", "clang-tidy-" + llvm_version + " -load " + plugin),
    ("%ddplint", os.path.join(obj, "bin", "ddplint")),
    ("%probe", "clang-tidy-16 -load " + probe + " -checks=-*,probe-vocabulary"),
    ("%mock_flags", mocks),
    ("%torch_flags", torch),
    ("%torch2_flags", torch2),
    ("%examples", os.path.join(src, "examples")),
    ("%src_root", src),
    ("%python", sys.executable),
    ("%expect_exit", os.path.join(src, "test", "tools", "expect-exit")),
    ("%{build_lib}", os.path.join(obj, "lib")),
    ("%{build_dir}", obj),
    # Output-format tests: a leaf-per-line view of JSON for FileCheck, the
    # SARIF Multitool and headless Chromium (both from scripts/install-deps;
    # the tests fail, naming the tool, when they are missing).
    ("%json_paths", sys.executable + " " +
     os.path.join(src, "test", "tools", "json-paths")),
    ("%sarif_validate", sys.executable + " " +
     os.path.join(src, "test", "tools", "sarif-validate")),
    ("%chromium", os.path.join(src, "test", "tools", "headless-chromium")),
])
# The SDK fallback's tests need the SDK headers to be absent from the
# compiler's default search path (a GPU machine may have them), and compare
# against Debian's Open MPI (libopenmpi-dev, from scripts/install-deps).
import subprocess
for header, feature in (("mpi.h", "system-mpi"), ("nccl.h", "system-nccl"),
                        ("cuda_runtime.h", "system-cuda"),
                        ("boost/mpi.hpp", "system-boost-mpi")):
    found = subprocess.run(
        ["clang++-16", "-x", "c++", "-E", "-o", os.devnull, "-"],
        input="#include <%s>\n" % header, universal_newlines=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if found:
        config.available_features.add(feature)
# The driver and plugin built against LLVM 19 beside this build
# (scripts/build-llvm19), and the clang-tidy they load into.
if os.path.exists(os.path.join(obj, "llvm19", "bin", "ddplint")):
    config.available_features.add("llvm19-build")
if shutil.which("clang-tidy-19"):
    config.available_features.add("clang-tidy-19")
openmpi = sorted(glob.glob("/usr/lib/*/openmpi/include/mpi.h"))
config.substitutions.append(
    ("%openmpi_include",
     os.path.dirname(openmpi[0]) if openmpi else "/missing/libopenmpi-dev"))

for var in ("DDPLINT_SARIF_MULTITOOL", "DDPLINT_CHROMIUM", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
