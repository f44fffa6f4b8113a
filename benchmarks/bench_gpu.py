"""Arrays on the GPU (issue 29): nanaccess on CuPy arrays against CuPy's own NaN
functions, with every result checked bit for bit against the CPU engines.

Rows (targets from the issue; times are the minimum of ``repeats`` runs after a
warm-up, measured with CUDA events on the GPU, ``time.perf_counter`` elsewhere):

* ``median`` and ``quantile(q=0.9)`` of ``n`` float64 (0.1 % NaN; NaN-free under
  "raise"; sample selection and one fused pass, :mod:`nanaccess.arrayapi.longrow`;
  "median, general path" without it) under every policy: <= 1.5x ``cupy.nanmedian``
  / ``cupy.nanquantile``;
* grouped median of ``n_grouped`` rows in ``groups`` groups
  (:func:`nanaccess.arrayapi.grouped_order_xp`): <= 10 ms (``reference_s`` is the
  target itself);
* exact ``sum`` of ``n`` float64: <= 3x ``cupy.sum``; exact ``mean`` and ``std``
  reported against ``cupy.mean`` / ``cupy.std`` without a target.

Bit equality: every device result of the timed size is compared with the CPU core
(:func:`nanaccess.core.reduce.reduce` on the host copy) where ``check_n`` allows it,
else on the first ``check_n`` elements (device and CPU on the same subset).

Without CuPy the same code runs on NumPy arrays through the array-API path (a smoke
run; the tests use it). Run: ``python benchmarks/bench_gpu.py [--quick] [--out DIR]``
(``benchmarks/gpu_check.sh`` runs it on the GPU machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nanaccess as na  # noqa: E402
from nanaccess.arrayapi import bins as _bins  # noqa: E402
from nanaccess.arrayapi import grouped_order_xp  # noqa: E402
from nanaccess.arrayapi._shim import to_numpy  # noqa: E402
from nanaccess.core.grouped import grouped_reduce  # noqa: E402
from nanaccess.core.reduce import reduce  # noqa: E402
from nanaccess.options import NanPolicy, option_context  # noqa: E402

POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")


def _cupy() -> Any:
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return cupy
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device
        pass
    return None


def device_info(cp: Any) -> dict:
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "machine": platform.machine()}
    if cp is None:
        info["device"] = "CPU (NumPy through the array-API path)"
        return info
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    info.update(device=name.decode() if isinstance(name, bytes) else str(name),
                cupy=cp.__version__, cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                cuda_driver=cp.cuda.runtime.driverGetVersion())
    try:
        import array_api_compat

        info["array_api_compat"] = array_api_compat.__version__
    except ImportError:
        pass
    return info


def timer(cp: Any, fn: Callable[[], Any], repeats: int) -> float:
    """Minimum seconds of ``repeats`` calls after one warm-up."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        if cp is not None:
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            t = cp.cuda.get_elapsed_time(start, end) / 1e3
        else:
            t0 = time.perf_counter()
            fn()
            t = time.perf_counter() - t0
        best = min(best, t)
    return best


def _bits(a: Any) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def same_bits(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(_bits(a),
                                                                             _bits(b)))


def _data(xp: Any, n: int, nan_frac: float, seed: int) -> Any:
    """float64 normal data with ``nan_frac`` NaNs (some negative, some with payloads)."""
    if xp is np:
        x = np.random.default_rng(seed).standard_normal(n)
        k = int(n * nan_frac)
        if k:
            idx = np.random.default_rng(seed + 1).choice(n, k, replace=False)
            x[idx] = np.nan
            x[idx[::3]] = -np.nan
        return x
    rs = xp.random.RandomState(seed)
    x = rs.standard_normal(n, dtype=xp.float64)
    k = int(n * nan_frac)
    if k:
        idx = rs.randint(0, n, size=k)
        x[idx] = xp.nan
        x[idx[::3]] = -xp.nan
    return x


def _row(case: str, n: int, policy: str, t: float, ref: str, t_ref: float,
         target: float | None, bits: bool | None, **extra: Any) -> dict:
    return {"case": case, "n": n, "policy": policy, "nanaccess_s": t, "reference": ref,
            "reference_s": t_ref, "ratio": t / t_ref if t_ref else float("nan"),
            "target": target, "bit_equal_cpu": bits, **extra}


#: the CPU engine of the bit checks: the NumPy engine is the project's reference (the
#: numba engines give the same bits) and needs no compile on a fresh machine
CPU_ENGINE = os.environ.get("NANACCESS_BENCH_CPU_ENGINE", "numpy")


def _cpu(x: Any, stat: str, policy: str, **params: Any) -> np.ndarray:
    with option_context(engine=CPU_ENGINE):
        return reduce(to_numpy(x), stat, policy=NanPolicy(policy), **params).values


def _check(xp: Any, x: Any, stat: str, policy: str, check_n: int, got: Any,
           **params: Any) -> bool:
    """Device result against the CPU core: whole data if ``check_n`` allows, else
    device and CPU on the first ``check_n`` elements."""
    fn = getattr(na, stat)
    if x.shape[0] > check_n:
        x = x[:check_n]
        got = fn(x, nan_policy=policy, **params)
    return same_bits(to_numpy(got), _cpu(x, stat, policy, **params))


def _percentile(fn: Callable, x: Any, q: float = 0.5) -> Any:
    return fn(x, q * 100)


def _nan_free_quantile(xp: Any, x: Any, q: float = 0.5) -> Any:
    return xp.quantile(x[~xp.isnan(x)], q)


def order_rows(xp: Any, cp: Any, n: int, repeats: int, check_n: int) -> list[dict]:
    rows = []
    clean = _data(xp, n, 0.0, 1)
    nans = _data(xp, n, 0.001, 2)
    for stat, ref_name, params in (("median", "nanmedian", {}),
                                   ("quantile", "nanquantile", {"q": 0.9})):
        ref = getattr(xp, ref_name, None)
        if ref is None and hasattr(xp, "nanpercentile"):
            ref_name = "nanpercentile"
            ref = partial(_percentile, xp.nanpercentile)
        elif ref is None:  # CuPy 14 has neither: quantile of the NaN-free values
            ref_name = "quantile(x[~isnan(x)])"
            ref = partial(_nan_free_quantile, xp)
        for policy in POLICIES:
            x = clean if policy == "raise" else nans
            try:
                fn = getattr(na, stat)
                got = fn(x, nan_policy=policy, **params)
                t = timer(cp, partial(fn, x, nan_policy=policy, **params), repeats)
                t_ref = timer(cp, partial(ref, x, **params), repeats)
                ok = _check(xp, x, stat, policy, check_n, got, **params)
                rows.append(_row(stat, n, policy, t, f"{xp.__name__}.{ref_name}", t_ref, 1.5,
                                 ok))
            except Exception as err:  # noqa: BLE001 - one failure must not stop the rest
                rows.append(_row(stat, n, policy, float("nan"), ref_name, float("nan"), 1.5,
                                 None, error=f"{type(err).__name__}: {err}"))
                traceback.print_exc()
            print(rows[-1], flush=True)
    try:  # the general selection (no sample selection), for comparison
        os.environ["NANACCESS_XP_LONGROW"] = "0"
        t = timer(cp, partial(na.median, nans, nan_policy="omit"), repeats)
        t_ref = timer(cp, partial(xp.nanmedian, nans), repeats)
        rows.append(_row("median, general path", n, "omit", t, f"{xp.__name__}.nanmedian",
                         t_ref, None, None))
    except Exception as err:  # noqa: BLE001
        rows.append(_row("median, general path", n, "omit", float("nan"), "nanmedian",
                         float("nan"), None, None, error=f"{type(err).__name__}: {err}"))
    finally:
        os.environ.pop("NANACCESS_XP_LONGROW", None)
    print(rows[-1], flush=True)
    return rows


def grouped_rows(xp: Any, cp: Any, n: int, groups: int, repeats: int) -> list[dict]:
    rows = []
    for policy in ("omit", "totalorder"):
        try:
            x = _data(xp, n, 0.001, 3)
            if xp is np:
                codes = np.random.default_rng(4).integers(0, groups, n)
            else:
                codes = xp.random.RandomState(4).randint(0, groups, size=n).astype(xp.int64)
            got = grouped_order_xp(x, codes, groups, "median", policy=policy)
            t = timer(cp, partial(grouped_order_xp, x, codes, groups, "median",
                                      policy=policy), repeats)
            with option_context(engine=CPU_ENGINE):
                want = grouped_reduce(to_numpy(x), to_numpy(codes), groups, "median",
                                      policy=NanPolicy(policy)).values
            ok = same_bits(to_numpy(got), want)
            rows.append(_row("grouped median", n, policy, t, "target 10 ms", 0.010, 1.0, ok,
                             groups=groups))
        except Exception as err:  # noqa: BLE001
            rows.append(_row("grouped median", n, policy, float("nan"), "target 10 ms", 0.010,
                             1.0, None, groups=groups, error=f"{type(err).__name__}: {err}"))
            traceback.print_exc()
        print(rows[-1], flush=True)
    return rows


def moment_rows(xp: Any, cp: Any, n: int, repeats: int, check_n: int) -> list[dict]:
    rows = []
    x = _data(xp, n, 0.0, 5)
    cases = [("sum", 3.0, None), ("mean", None, None), ("std", None, None)]
    if cp is not None:  # the warp-aggregated bins kernel (the previous one), for comparison
        cases.insert(1, ("sum", None, "warp"))
    for stat, target, bins in cases:
        if bins:
            os.environ["NANACCESS_XP_BINS"] = bins
        try:
            fn = getattr(na, stat)
            got = fn(x)
            engine = _bins.last_engine() if cp is not None else "NumPy core"
            if cp is not None and engine == "cupy-kernel":
                from nanaccess.arrayapi._cupy_bins import variant

                engine += f" ({variant()})"
            t = timer(cp, partial(fn, x), repeats)
            ref = getattr(xp, stat)
            t_ref = timer(cp, partial(ref, x), repeats)
            ok = _check(xp, x, stat, "raise", check_n, got)
            rows.append(_row(stat, n, "raise", t, f"{xp.__name__}.{stat}", t_ref, target, ok,
                             engine=engine))
        except Exception as err:  # noqa: BLE001
            rows.append(_row(stat, n, "raise", float("nan"), stat, float("nan"), target, None,
                             error=f"{type(err).__name__}: {err}"))
            traceback.print_exc()
        finally:
            os.environ.pop("NANACCESS_XP_BINS", None)
        print(rows[-1], flush=True)
    return rows


def markdown(rows: list[dict], info: dict) -> str:
    lines = ["# nanaccess on the GPU (issue 29)", "",
             ", ".join(f"{k}: {v}" for k, v in info.items()), "",
             "| case | n | policy | nanaccess (ms) | reference | reference (ms) | ratio | "
             "target | bit-equal to CPU | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        note = r.get("error") or r.get("engine") or (f"{r['groups']} groups"
                                                      if "groups" in r else "")
        lines.append(
            f"| {r['case']} | {r['n']:.0e} | {r['policy']} | {r['nanaccess_s'] * 1e3:.2f} | "
            f"{r['reference']} | {r['reference_s'] * 1e3:.2f} | {r['ratio']:.2f} | "
            f"{'' if r['target'] is None else r['target']} | {r['bit_equal_cpu']} | {note} |")
    return "\n".join(lines) + "\n"


def run(n: int = 10**8, n_grouped: int = 10**7, groups: int = 1000, repeats: int = 5,
        check_n: int = 10**7, out_dir: Path | str | None = None,
        parts: tuple[str, ...] = ("order", "grouped", "moments")) -> list[dict]:
    """Run the benchmark; write ``gpu.md`` and ``gpu.json`` into ``out_dir``."""
    cp = _cupy()
    xp = np if cp is None else cp
    info = device_info(cp)
    print(info, flush=True)
    info["cpu_reference_engine"] = CPU_ENGINE
    info["selection"] = "sort" if os.environ.get("NANACCESS_XP_SORT") == "1" else "partition"
    rows: list[dict] = []
    steps = (("order", lambda: order_rows(xp, cp, n, repeats, check_n)),
             ("moments", lambda: moment_rows(xp, cp, n, repeats, check_n)),
             ("grouped", lambda: grouped_rows(xp, cp, n_grouped, groups, repeats)))
    for name, step in steps:
        if name not in parts:
            continue
        rows += step()
        if out_dir is not None:  # after each part: a timeout keeps what was measured
            out = Path(out_dir)
            out.mkdir(parents=True, exist_ok=True)
            (out / "gpu.json").write_text(json.dumps({"info": info, "results": rows},
                                                     indent=1, default=str))
            (out / "gpu.md").write_text(markdown(rows, info))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1e6 elements, 2 repeats")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--parts", default="order,grouped,moments")
    args = ap.parse_args()
    sizes = dict(n=10**6, n_grouped=10**6, repeats=2, check_n=10**6) if args.quick else {}
    run(out_dir=args.out, parts=tuple(args.parts.split(",")), **sizes)


if __name__ == "__main__":
    main()
