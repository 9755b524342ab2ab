#!/bin/bash
# Test driver written for the sandbox-bash corpus; it is not part of
# bash-completion. It loads the real bash_completion 2.11 script
# non-interactively, computes the completions for a list of command lines the
# way readline would call the completion functions, and prints them sorted.
# Run it from this directory (it creates its fixtures under ./fixture).

export LC_ALL=C
# Keep every look-up inside this directory: no user or system completion dirs.
export BASH_COMPLETION_USER_DIR=$PWD/fixture/user
export XDG_DATA_DIRS=$PWD/fixture/share
export BASH_COMPLETION_COMPAT_DIR=$PWD/fixture/compat

rm -rf fixture
mkdir -p fixture/dir-one fixture/dir-two fixture/user fixture/share fixture/compat
printf 'all: build\nbuild:\n\t@true\ncheck: build\n\t@true\ninstall-data:\n\t@true\n.PHONY: all build check install-data\n' > fixture/Makefile
printf 'one\n' > fixture/member-one.txt
printf 'two\n' > fixture/member-two.txt
tar -C fixture -cf fixture/archive.tar member-one.txt member-two.txt
printf 'Host corpus-alpha\n  HostName 127.0.0.1\nHost corpus-beta corpus-gamma\n  Port 2222\n' > fixture/ssh_config
: > fixture/script.sh
chmod +x fixture/script.sh

. "$PWD/bash_completion" || { echo "bash_completion failed to load" >&2; exit 1; }

complete_line() {
    local line=$1 spec func cmd
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMP_TYPE=9
    read -ra COMP_WORDS <<<"$line"
    [[ $line == *' ' ]] && COMP_WORDS+=('')
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    cmd=${COMP_WORDS[0]}
    spec=$(complete -p -- "$cmd" 2>/dev/null)
    if [[ -z $spec ]]; then
        __load_completion "$cmd"
        spec=$(complete -p -- "$cmd" 2>/dev/null)
    fi
    [[ -z $spec ]] && spec=$(complete -p -D 2>/dev/null)
    func=$(sed -n 's/.* -F \([^ ]*\) .*/\1/p' <<<"$spec")
    COMPREPLY=()
    if [[ -n $func ]]; then
        "$func" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
        if (($? == 124)); then
            # the loader defined the real completion: look it up again
            spec=$(complete -p -- "$cmd" 2>/dev/null)
            func=$(sed -n 's/.* -F \([^ ]*\) .*/\1/p' <<<"$spec")
            COMPREPLY=()
            [[ -n $func ]] && "$func" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
        fi
    fi
    printf '== %s [%s] %d\n' "$line" "${func:-none}" "${#COMPREPLY[@]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort | head -n 15
}

cd fixture || exit 1
complete_line 'make '
complete_line 'make -C . in'
complete_line 'tar -tf archive.tar '
complete_line 'tar -xf '
complete_line 'tar --'
complete_line 'ls --col'
complete_line 'grep --colo'
complete_line 'find . -ty'
complete_line 'find . -type '
complete_line 'chmod '
complete_line 'kill -'
complete_line 'kill -s '
complete_line 'pgrep -'
complete_line 'ssh -F ssh_config corpus-'
complete_line 'ssh -o '
complete_line 'ssh corpus-'
complete_line 'man -'
complete_line 'cat member-'
complete_line 'cd dir-'
complete_line 'sudo make '
complete_line './scr'
echo "done"
