# One folder per app test for the files it writes, removed when the test ends, passed or failed, so
# that a test run leaves nothing behind; CBCT_KEEP_TEST_FILES=1 keeps it (and says where), for looking
# at what a test wrote. Two ways to use it:
#
#   Sourced by a test script, instead of making its work folder itself:
#     . "$(dirname "$0")/test_folder.sh"
#     cbct_test_folder "$work"     # $work made afresh and entered; removed when the script exits
#   A script that needs its own cleanup at exit adds it with cbct_at_exit 'command' (one EXIT trap).
#
#   Run, around a command that is not a shell script (a Python check, a program):
#     bash test_folder.sh DIR COMMAND [ARGS...]
#   runs COMMAND in a fresh DIR and removes DIR afterwards; the exit status is COMMAND's.
#     bash test_folder.sh --remove DIR
#   removes DIR (a folder several tests share, after the last of them).

cbct_test_folder_path=
cbct_test_folder_at_exit=

cbct_test_folder_end() {
  local status=$?
  [ -n "$cbct_test_folder_at_exit" ] && eval "$cbct_test_folder_at_exit"
  if [ -n "$cbct_test_folder_path" ]; then
    cd / || true
    if [ "${CBCT_KEEP_TEST_FILES:-0}" = 1 ]; then
      echo "CBCT_KEEP_TEST_FILES=1: kept $cbct_test_folder_path"
    else
      rm -rf "$cbct_test_folder_path"
    fi
  fi
  return $status
}

# cbct_test_folder DIR: DIR emptied (or made) and entered; removed when the script exits.
cbct_test_folder() {
  rm -rf "$1"
  mkdir -p "$1"
  cbct_test_folder_path=$(cd "$1" && pwd)
  trap cbct_test_folder_end EXIT
  trap 'exit 143' TERM # ctest's timeout: still removed
  trap 'exit 130' INT
  cd "$cbct_test_folder_path" || exit 1
}

# cbct_at_exit COMMAND: run COMMAND (a string, eval'ed) when the script exits, before the folder goes.
cbct_at_exit() {
  cbct_test_folder_at_exit="${cbct_test_folder_at_exit:+$cbct_test_folder_at_exit; }$1"
  trap cbct_test_folder_end EXIT
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # Run as a program: test_folder.sh DIR COMMAND [ARGS...], or test_folder.sh --remove DIR.
  if [ $# -eq 2 ] && [ "$1" = --remove ]; then
    cbct_test_folder_path=$2
    cbct_test_folder_end
    exit 0
  fi
  if [ $# -lt 2 ]; then
    echo "usage: test_folder.sh DIR COMMAND [ARGS...] | test_folder.sh --remove DIR" >&2
    exit 2
  fi
  cbct_test_folder "$1"
  shift
  "$@"
fi
