#!/usr/bin/env bash
# Runs fuzz targets for a fixed time each: `fuzz/run.sh SECONDS [TARGET...]` (all targets when
# none are named). Needs a nightly toolchain and cargo-fuzz. Each target starts from its
# committed seeds (corpus/<target>/) plus a working corpus under target/corpus/<target>/
# (not committed); a crash, panic, timeout (> 10 s per input) or out-of-memory (> 2 GB) stops
# the target, saves the input under artifacts/<target>/ and makes this script fail. Prints one
# summary line per target (libFuzzer's executions and exec/s). With FUZZ_KEEP_GOING=1 a target
# runs its whole time in libFuzzer's fork mode, saving every finding instead of stopping at
# the first (for long local runs; the script still fails if anything was found).
# With FUZZ_SEED=N every target runs with libFuzzer's -seed=N from its committed seeds alone
# (a fresh working corpus under target/corpus-seed-N/): the same commit replays the same seeds
# and draws the same first mutations (libFuzzer is not bit-for-bit deterministic beyond a few
# thousand executions: coverage feedback diverges). CI runs seeded; exploration is the
# unseeded local run, whose findings go into corpus/<target>/ as seeds.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# -s none: every crate under test is #![forbid(unsafe_code)], so AddressSanitizer adds cost
# and no findings; -a: debug assertions and overflow checks stay on (they are findings too).
cargo +nightly fuzz build -s none -a

failed=()
summary=()
for t in "${targets[@]}"; do
    work="target/corpus/$t"
    seed=()
    if [ -n "${FUZZ_SEED:-}" ]; then
        work="target/corpus-seed-$FUZZ_SEED/$t"
        rm -rf "$work"
        seed=(-seed="$FUZZ_SEED")
    fi
    mkdir -p "$work" "artifacts/$t"
    log="target/fuzz-$t.log"
    echo "fuzz $t: ${seconds}s"
    extra=()
    if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
        extra=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    before=$(find "artifacts/$t" -type f | wc -l)
    if cargo +nightly fuzz run -s none -a "$t" "$work" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" "${seed[@]}" "${extra[@]}" >"$log" 2>&1 &&
        [ "$(find "artifacts/$t" -type f | wc -l)" = "$before" ]; then
        # the final stats line: "#N DONE cov: ... exec/s: ..." (fork mode: "#N: cov: ...")
        summary+=("$t: $(grep -E '^#[0-9]+(:|[[:space:]]+DONE)' "$log" | tail -n 1 || true)")
    else
        failed+=("$t")
        summary+=("$t: FAILED (log $PWD/$log, inputs in $PWD/artifacts/$t/)")
        grep -E -A25 'panicked at|ERROR: libFuzzer|SUMMARY' "$log" | head -n 60 || true
    fi
done
printf '%s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
