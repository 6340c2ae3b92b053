"""A PEP 517 build backend for kvplan's Python package, standard library only.

pip runs it in an isolated environment with nothing installed (pyproject's
``requires = []``), so ``pip install ./python`` needs no package index. The
wheel holds the package's modules and the C library it calls, found as:

1. ``$KVPLAN_LIBRARY``: a path to ``libkvplan.so``;
2. the project's own build (``build/lib/libkvplan.so``, as the README's
   commands leave it), when it has the JSON entry point;
3. else built here with CMake into a temporary folder (a C compiler, CMake,
   pkg-config and jansson: ``scripts/deps.sh`` installs them).
"""

import base64
import ctypes
import hashlib
import os
import re
import subprocess
import sysconfig
import tempfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
ROOT = os.path.dirname(HERE)  # the project
NAME = "kvplan"


def _version():
    with open(os.path.join(HERE, "kvplan", "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    return m.group(1)


def _usable(path):
    """True when `path` is a kvplan library with kvplan_json."""
    try:
        return hasattr(ctypes.CDLL(os.path.abspath(path)), "kvplan_json")
    except OSError:
        return False


def _library(workdir):
    given = os.environ.get("KVPLAN_LIBRARY")
    if given:
        if not _usable(given):
            raise RuntimeError("KVPLAN_LIBRARY=%s: not a kvplan library with "
                               "kvplan_json" % given)
        return given
    built = os.path.join(ROOT, "build", "lib", "libkvplan.so")
    if os.path.exists(built) and _usable(built):
        return built
    if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
        raise RuntimeError("kvplan's C library was not found: set "
                           "KVPLAN_LIBRARY to libkvplan.so, or install from "
                           "the project's python/ folder")
    out = os.path.join(workdir, "cmake")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", out,
                           "-DBUILD_TESTING=OFF", "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", out, "--target", "kvplan_shared",
                           "-j", str(os.cpu_count() or 2)])
    return os.path.join(out, "lib", "libkvplan.so")


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + plat


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return "%s,sha256=%s,%d" % (arc, digest.rstrip(b"=").decode(), len(data))


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Plan an LLM server's KV-cache memory as sglang would, "
            "exactly\nRequires-Python: >=3.8\nLicense: Apache-2.0\n"
            "Classifier: License :: OSI Approved :: Apache Software License\n"
            % (NAME, version))


ENTRY_POINTS = b"[console_scripts]\nkvplan = kvplan.__main__:main\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    d = os.path.join(metadata_directory, "%s-%s.dist-info" % (NAME, version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    with open(os.path.join(d, "entry_points.txt"), "wb") as f:
        f.write(ENTRY_POINTS)
    return os.path.basename(d)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def _wheel(wheel_directory, files, tag):
    version = _version()
    info = "%s-%s.dist-info" % (NAME, version)
    files.append((info + "/METADATA", _metadata(version).encode()))
    files.append((info + "/entry_points.txt", ENTRY_POINTS))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: "
                                    "kvplan_build\nRoot-Is-Purelib: false\n"
                                    "Tag: %s\n" % tag).encode()))
    wheel = "%s-%s-%s.whl" % (NAME, version, tag)
    record = [_record_line(a, d) for a, d in files]
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            zi = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    pkg = os.path.join(HERE, "kvplan")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(pkg, name), "rb") as f:
                files.append(("kvplan/" + name, f.read()))
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.realpath(_library(work)), "rb") as f:
            files.append(("kvplan/libkvplan.so", f.read()))
    return _wheel(wheel_directory, files, _tag())


def build_editable(wheel_directory, config_settings=None,
                   metadata_directory=None):
    """pip install -e: the package read from this folder; the library from
    $KVPLAN_LIBRARY or the project's build/lib (kvplan/_native.py)."""
    files = [("_kvplan_editable.pth", (HERE + "\n").encode())]
    return _wheel(wheel_directory, files, "py3-none-any")
