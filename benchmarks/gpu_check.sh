#!/usr/bin/env bash
# One-shot GPU check of issue 29 (arrays on the GPU), run from the repository root:
#     bash benchmarks/gpu_check.sh
# Prints versions and the device, runs the CuPy (and torch-on-CUDA) array-API tests,
# then benchmarks/bench_gpu.py; writes $OUT/gpu.md and $OUT/gpu.json (OUT defaults to
# benchmarks/results). Needs no network: array_api_compat comes from the wheels in
# .whl/ when it is not installed. Sized to finish in about 4 minutes on an H200.
set -u
export PYTHONUNBUFFERED=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/benchmarks/results}
mkdir -p "$OUT"
PY=${PYTHON:-$(command -v python || command -v python3)}
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
START=$(date +%s)

if ! $PY -c "import array_api_compat" 2>/dev/null; then
    echo "== array_api_compat from .whl/"
    # a pure-Python wheel is a zip archive: unpacked, it is importable (no pip, no index)
    $PY -c "import glob, zipfile; [zipfile.ZipFile(w).extractall('$ROOT/.whl/site')
for w in glob.glob('$ROOT/.whl/*.whl')]" || echo "unpacking .whl failed"
    export PYTHONPATH="$PYTHONPATH:$ROOT/.whl/site"
fi

echo "== versions"
$PY - <<'PY'
import platform, numpy
print("python", platform.python_version(), "numpy", numpy.__version__)
for name in ("cupy", "array_api_compat", "torch", "jax", "numba", "pandas", "xarray",
             "pytest", "hypothesis"):
    try:
        m = __import__(name)
        print(name, getattr(m, "__version__", "?"))
    except Exception as e:
        print(name, "not importable:", type(e).__name__, e)
try:
    import cupy
    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    print("device", props["name"], "| compute", dev.compute_capability,
          "| CUDA runtime", cupy.cuda.runtime.runtimeGetVersion(),
          "| driver", cupy.cuda.runtime.driverGetVersion(),
          "| memory GiB", round(dev.mem_info[1] / 2**30, 1))
except Exception as e:
    print("no CUDA device through CuPy:", type(e).__name__, e)
import nanaccess
print("nanaccess", nanaccess.__version__, nanaccess.__file__)
PY
[ -f READY_FOR_GPU ] && echo "commit $(cat READY_FOR_GPU)"

echo "== CuPy kernel smoke test"
timeout 75 $PY - <<'PY' 2>&1 | tee "$OUT/gpu_smoke.txt"
import numpy as np
try:
    import cupy as cp
    from nanaccess.arrayapi._cupy_bins import cupy_summary, device_bins
    from nanaccess.arrayapi.bins import _assemble, _portable
    from nanaccess.arrayapi._shim import namespace
    x = cp.asarray(np.random.default_rng(0).standard_normal((3, 1000)) * 1e3)
    b = x.view(cp.int64)
    device_bins(b)  # raises if the kernel does not build
    k1 = cupy_summary(b)[0]; k2 = _portable(b, namespace(b))
    print("kernel sums == portable sums:", _assemble(*k1, 3) == _assemble(*k2, 3))
    import os
    os.environ["NANACCESS_XP_BINS"] = "warp"
    k3 = cupy_summary(b)[0]
    del os.environ["NANACCESS_XP_BINS"]
    print("warp-aggregated kernel sums == portable sums:", _assemble(*k3, 3) == _assemble(*k2, 3))
    z = cp.asarray(np.array([-0.0, 0.0, -1.0, 1.0, -np.inf]))
    from nanaccess.arrayapi.common import survey
    from nanaccess.core.keys import float_keys
    print("keys of -0, +0, -1, 1, -inf:", survey(z.reshape(1, -1), namespace(z)).keys.get())
    import sys; sys.path.insert(0, "tests")
    from arrayapi.helpers import messy
    for dt in ("float64", "float32"):
        for nans in ("quiet", "all"):
            xm = messy(dt, (4, 9), seed=9, nans=nans, wide=True)
            dk = survey(cp.asarray(xm).reshape(1, -1), namespace(z)).keys.get()
            print(f"device keys == CPU keys ({dt}, {nans}):",
                  np.array_equal(dk.ravel(), float_keys(xm).ravel()))
    from nanaccess.arrayapi._cupy_select import hist_select
    k = survey(cp.asarray(np.random.default_rng(1).standard_normal((1, 10**6))), namespace(x)).keys[0]
    kth = np.array([0, 499999, 500000, 999999])
    print("histogram selection == sort:", np.array_equal(hist_select(k, kth), cp.sort(k)[cp.asarray(kth)].get()))
except Exception as e:
    import traceback; traceback.print_exc()
try:  # the new kernels against their references (issue 29, items 1-2)
    import cupy as cp
    from nanaccess.arrayapi import _cupy_scan, longrow
    from nanaccess.arrayapi._shim import namespace
    from nanaccess.core.bits import layout_of
    rng = np.random.default_rng(3)
    for dt in ("float64", "float32"):
        h = rng.standard_normal(10**6).astype(dt)
        h[::997] = np.nan; h[5::1999] = -np.nan
        h[7] = np.array(0x7FF0000000000001 if dt == "float64" else 0x7F800001,
                        dtype="u8" if dt == "float64" else "u4").view(dt)
        lay = layout_of(np.dtype(dt))
        d = cp.asarray(h); bits = d.view(lay.int_dtype.name)
        ks = np.sort(h.view(lay.int_dtype) ^ ((h.view(lay.int_dtype) >> (lay.bits - 1)) & lay.int_max))
        lo, hi = int(ks[400000]), int(ks[600000])
        got = _cupy_scan.scan(bits, lo, hi, 300000)
        want, wmid = longrow.scan_reference(bits, namespace(d), lay, lo, hi)
        print(f"scan kernel counts == reference ({dt}):", got is not None and np.array_equal(got[0], want), got and got[0].tolist())
        print(f"scan kernel gathered keys == reference ({dt}):", got is not None and np.array_equal(cp.sort(got[1][:int(got[0][4])]).get(), cp.sort(wmid).get()))
        small = _cupy_scan.scan(bits, lo, hi, 1000)  # overflowing buffer: counts still right
        print(f"scan kernel with a short buffer counts right ({dt}):", small is not None and np.array_equal(small[0], want))
        import nanaccess as na
        from nanaccess.core.reduce import reduce
        from nanaccess.options import NanPolicy
        for pol in ("omit", "smallest", "largest", "totalorder", "propagate"):
            for st, pr in (("median", {}), ("quantile", {"q": [0.1, 0.5, 0.99]})):
                for data_h in (h, np.where(np.isnan(h), np.float64(-np.nan).astype(dt), h)):
                    data_d = cp.asarray(data_h)
                    try:
                        b = reduce(data_h, st, policy=NanPolicy(pol), **pr).values
                    except Exception as e:
                        b = e
                    try:
                        a = getattr(na, st)(data_d, nan_policy=pol, **pr).get()
                    except Exception as e:
                        a = e
                    if isinstance(a, Exception) or isinstance(b, Exception):
                        ok = type(a) is type(b) and str(a) == str(b)
                    else:
                        ok = np.array_equal(np.asarray(a).view("u%d" % h.itemsize), np.asarray(b).view("u%d" % h.itemsize))
                    if not ok: print("MISMATCH", dt, pol, st, repr(a)[:200], repr(b)[:200])
        print(f"long-row median/quantile == CPU, 5 policies, with and without a signaling NaN ({dt}): checked (MISMATCH lines above if not)")
        hs = rng.standard_normal((3, 40000)) * 10.0 ** rng.integers(-200, 200, (3, 40000))
        hs = hs.astype(dt)
        from nanaccess.arrayapi._cupy_bins import cupy_summary
        from nanaccess.arrayapi.bins import _assemble, _portable
        xb = cp.asarray(hs).view(lay.int_dtype.name)
        wnd = cupy_summary(xb)
        ref64 = cp.asarray(np.where(np.isfinite(hs), hs, 0).astype(np.float64))  # kernel: no inf, no NaN in bins
        port = _portable(ref64.view(cp.int64), namespace(ref64))
        print(f"window sum kernel == portable ({dt}):", wnd is not None and _assemble(*wnd[0], 3) == _assemble(*port, 3))
except Exception:
    import traceback; traceback.print_exc()
try:  # where the time goes at 1e8 (CUDA events, ms; min of 5)
    import cupy as cp
    import nanaccess as na
    from nanaccess.arrayapi import _cupy_scan, longrow, _cupy_bins
    from nanaccess.arrayapi.common import survey
    from nanaccess.arrayapi._shim import namespace
    from nanaccess.core.bits import layout_of
    x = cp.random.RandomState(2).standard_normal(10**8)
    x[::1000] = cp.nan
    xp = namespace(x); lay = layout_of(np.dtype("float64")); b = x.view(cp.int64)
    y = cp.nan_to_num(x)
    def ms(fn, r=5):
        fn(); t = 1e9
        for _ in range(r):
            s, e = cp.cuda.Event(), cp.cuda.Event(); s.record(); fn(); e.record(); e.synchronize()
            t = min(t, cp.cuda.get_elapsed_time(s, e))
        return round(t, 3)
    sk = longrow._sample(x, xp, lay, 10**8)
    lo, hi, exp = longrow._bracket(sk[0], xp, sk[1], 10**8, np.array([5 * 10**7]), lay)
    got = _cupy_scan.scan(b, lo, hi, 2 * exp + 4096)
    print("stages:", {"cupy.sum": ms(lambda: cp.sum(x)), "cupy.nanmedian": ms(lambda: cp.nanmedian(x)),
          "sample": ms(lambda: longrow._sample(x, xp, lay, 10**8)),
          "scan kernel": ms(lambda: _cupy_scan.scan(b, lo, hi, 2 * exp + 4096)),
          "sort of the bracket": ms(lambda: cp.sort(got[1][:int(got[0][4])])),
          "bracket keys": int(got[0][4]),
          "median omit (all)": ms(lambda: na.median(x, nan_policy="omit")),
          "survey (general path)": ms(lambda: survey(x.reshape(1, -1), xp)),
          "window sum kernel": ms(lambda: _cupy_bins._device_both(b.reshape(1, -1))),
          "sum (all)": ms(lambda: na.sum(y))})
    del x, b, y
except Exception:
    import traceback; traceback.print_exc()
try:  # partition or sort for the selection: whichever is faster here
    import time
    import cupy as cp
    k = cp.random.RandomState(0).standard_normal(10**8).view(cp.int64).reshape(1, -1)
    def best(fn):
        fn(); cp.cuda.Device().synchronize(); t = 1e9
        for _ in range(3):
            t0 = time.perf_counter(); fn(); cp.cuda.Device().synchronize()
            t = min(t, time.perf_counter() - t0)
        return t
    tp = best(lambda: cp.partition(k, 5 * 10**7, axis=1))
    ts = best(lambda: cp.sort(k, axis=1))
    print(f"1e8 int64 keys: cupy.partition {tp*1e3:.1f} ms, cupy.sort {ts*1e3:.1f} ms")
    if ts < tp:
        print("SELECT=sort")
    del k
except Exception as e:
    import traceback; traceback.print_exc()
PY

grep -q "^SELECT=sort" "$OUT/gpu_smoke.txt" && export NANACCESS_XP_SORT=1 \
    && echo "selection by sort (faster than cupy.partition here)"

for LIB in cupy torch; do
    echo "== pytest tests/arrayapi -k $LIB"
    LIMIT=90; [ "$LIB" = torch ] && LIMIT=35
    HYPOTHESIS_PROFILE=ci timeout $LIMIT $PY -m pytest tests/arrayapi -q -p no:cacheprovider \
        -p no:xdist -k "$LIB" --maxfail=25 --no-header -rfE --durations=5 \
        > "$OUT/pytest_$LIB.txt" 2>&1
    echo "pytest $LIB exit: $? (124: timed out); full output in \$OUT/pytest_$LIB.txt"
    grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest_$LIB.txt" | tail -30
done

echo "== benchmark"
LEFT=$(( 235 - ($(date +%s) - START) ))
[ "$LEFT" -lt 90 ] && LEFT=90
QUICK=""
$PY -c "import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() == 0)" 2>/dev/null \
    || { QUICK="--quick"; echo "no CUDA device: a quick CPU run"; }
timeout "$LEFT" $PY benchmarks/bench_gpu.py --out "$OUT" $QUICK
echo "bench exit: $?"
[ -f "$OUT/gpu.md" ] && cat "$OUT/gpu.md"
echo "== done in $(( $(date +%s) - START )) s"
