# shellcheck shell=bash
# The stages of tests/run.sh (make test) and tests/matrix.sh (make test-matrix), sourced by both:
#   stage NAME COMMAND...   runs it, prints its time, adds NAME to $failed when it fails
#   lanes FUNCTION...       runs the functions at the same time (see below)
#   end_of_stages           prints the stages that failed and exits 1, or says all passed
# Stages are called as `if "$@"`, where errexit does not apply: each step checks its own status.

failed=()
stage() {
    local name="$1"
    shift
    local start=$SECONDS
    echo
    echo "===== $name ====="
    if "$@"; then
        echo "===== $name: passed in $((SECONDS - start)) s ====="
    else
        echo "===== $name: FAILED in $((SECONDS - start)) s =====" >&2
        failed+=("$name")
    fi
}

lanes() {
    # lanes FUNCTION...: runs the functions at the same time, each one a lane of stages run in order, with its
    # output in a file; prints each lane's output when all have ended, in the order given, and adds the stages
    # that failed to $failed. Each stage given to a lane is mostly one process (the pytest stage takes the
    # machine's two cores alone): two lanes fill two cores.
    local dir index lane pids=()
    dir="$(mktemp -d)"
    echo
    echo "===== at the same time: $* (each one's output when all have ended) ====="
    for lane in "$@"; do
        index=${#pids[@]}
        (failed=(); "$lane"; ((${#failed[@]} == 0)) || printf '%s\n' "${failed[@]}" >"$dir/$index.failed") \
            >"$dir/$index.log" 2>&1 &
        pids+=("$!")
    done
    for index in "${!pids[@]}"; do
        wait "${pids[$index]}" || failed+=("lane $index (${*:index+1:1})")
        cat "$dir/$index.log"
        if [[ -f $dir/$index.failed ]]; then
            mapfile -t -O "${#failed[@]}" failed <"$dir/$index.failed"
        fi
    done
    rm -rf "$dir"
}

end_of_stages() {
    echo
    if ((${#failed[@]})); then
        echo "FAILED stages: ${failed[*]}" >&2
        exit 1
    fi
    echo "All stages passed."
}
