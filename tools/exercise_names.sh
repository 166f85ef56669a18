# shellcheck shell=bash
# Sourced by grade.sh, grade_class.sh and hint.sh: the exercise names in EX's
# text, checked; and student ids.
# exercise_names TEXT LIST...: sets `names` to TEXT's words (no globbing, no
# expansion: the text is data) or, if TEXT is blank, to LIST; a name given
# twice counts once (`EX="ch01 ch01"` grades ch01 once, "of 1"), in the order
# first given; exits 2 with "no exercise 'X' (exercises: LIST)" for a word not
# in LIST, its control characters shown as '?' (the text is the user's, the
# terminal is theirs too).
exercise_names() {
    local text=$1 word words=() seen=' '
    shift
    read -r -d '' -a words <<< "$text"
    [ ${#words[@]} -gt 0 ] || words=("$@")
    names=()
    for word in "${words[@]}"; do
        case " $* " in
            *" $word "*) ;;
            *) echo "$tool: no exercise '$(printf '%s' "$word" | LC_ALL=C tr '[:cntrl:]' '?')' (exercises: $*)" >&2; exit 2 ;;
        esac
        case $seen in
            *" $word "*) ;;
            *) names+=("$word") seen+="$word " ;;
        esac
    done
}

# student_id_ok TEXT: a student id as the graders take it: 1 to 64 of A-Z a-z
# 0-9 . _ @ + -, from a letter or a digit (a login, a number, an e-mail
# address: it reads the same in every table and terminal, is never a formula,
# and never equals a summary row's label, which all hold a blank; A-Z as
# ASCII's). tools/collect_grades.py checks the same set.
student_id_ok() { local LC_ALL=C; [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$ ]]; }
