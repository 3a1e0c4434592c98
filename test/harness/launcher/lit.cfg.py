# lit configuration for ddp-harness's launcher tests (run through ctest as
# `harness-launcher`, or directly:
#   python3 /usr/lib/llvm-16/build/utils/lit/lit.py -sv test/harness/launcher).
# The ranks are the small programs in tools/, built with the harness.
import os
import lit.formats

config.name = "ddp-harness-launcher"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs", "tools", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)

src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
obj = os.path.abspath(lit_config.params.get("build_dir",
                                            os.path.join(src, "build")))
llvm_tools_dir = lit_config.params.get("llvm_tools_dir", "/usr/lib/llvm-16/bin")
config.test_exec_root = os.path.join(obj, "test", "harness", "launcher")

config.environment["PATH"] = os.pathsep.join(
    [llvm_tools_dir, os.environ.get("PATH", "/usr/bin:/bin")])
config.environment["TERM"] = "dumb"
# Default run directories go under the test's own tree, never /tmp.
config.environment["TMPDIR"] = os.path.join(config.test_exec_root, "tmp")

here = os.path.dirname(__file__)
tools = os.path.join(obj, "test", "harness", "launcher", "tools")
config.substitutions.extend([
    ("%harness", os.path.join(obj, "bin", "ddp-harness")),
    ("%ranks", tools),
    ("%expect_exit", os.path.join(src, "test", "tools", "expect-exit")),
    ("%json_fields", "python3 " + os.path.join(here, "tools", "json-fields.py")),
    ("%check_svg", "python3 " + os.path.join(here, "tools", "check-svg.py")),
    ("%check_gone", "python3 " + os.path.join(here, "tools", "check-gone.py")),
    ("%check_port", "python3 " + os.path.join(here, "tools", "check-port.py")),
    ("%check_layers", "python3 " + os.path.join(here, "tools",
                                                "check-layers.py")),
    ("%checkout", src),
])
