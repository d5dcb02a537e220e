# lit configuration for gpujit's FileCheck tests: each *.py here is a kernel file whose `# RUN:` lines run the
# CLI and check its LLVM IR, PTX or diagnostics with FileCheck; every PTX a test makes is also assembled by
# ptxas (%ptxas-all) for each supported architecture.
#
# ctest runs this suite (tests/CMakeLists.txt) with the built CLI. By hand:
#   /usr/lib/llvm-22/bin/lit -sv tests/filecheck --param gpujit=build/dev/cli/gpujit
# Parameters (--param NAME=VALUE): gpujit (the CLI; default .venv/bin/gpujit, then build/dev/cli/gpujit),
# ptxas (default: PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin), llvm_bin (where FileCheck and
# `not` are; default /usr/lib/llvm-22/bin), exec_root (where %t files go; default build/filecheck).
import os
import shutil
import sys

import lit.formats

config.name = "gpujit-filecheck"
# bash runs the RUN lines, so a line can check an exit status: `%gpujit ... ; test $? -eq 2`.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".py"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
params = lit_config.params


def first_existing(*candidates):
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    return None


config.test_exec_root = params.get("exec_root", os.path.join(repo_root, "build", "filecheck"))

gpujit = first_existing(
    params.get("gpujit"),
    os.path.join(repo_root, ".venv", "bin", "gpujit"),
    os.path.join(repo_root, "build", "dev", "cli", "gpujit"),
)
if gpujit is None:
    lit_config.fatal("the gpujit CLI was not found; build it (scripts/setup) or pass --param gpujit=PATH")

cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ptxas = first_existing(params.get("ptxas"), shutil.which("ptxas"), os.path.join(cuda_home, "bin", "ptxas"))
if ptxas is None:
    lit_config.fatal("ptxas was not found; install the CUDA toolkit or pass --param ptxas=PATH")

llvm_bin = params.get("llvm_bin", "/usr/lib/llvm-22/bin")
if not os.path.isfile(os.path.join(llvm_bin, "FileCheck")):
    lit_config.fatal(f"FileCheck was not found in {llvm_bin} (llvm-22-tools); pass --param llvm_bin=DIR")

# FileCheck and `not` come from LLVM 22's tools, ahead of anything else on PATH.
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])

ptxas_check = os.path.join(repo_root, "tests", "ptxas", "ptxas_check.py")
config.substitutions.append(("%gpujit", gpujit))
config.substitutions.append(("%ptxas-all", f"{sys.executable} {ptxas_check} --ptxas {ptxas}"))

lit_config.note(f"gpujit: {gpujit}")
lit_config.note(f"ptxas: {ptxas}")
