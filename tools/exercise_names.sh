# Sourced by grade.sh and hint.sh: the exercise names in EX's text, checked.
# exercise_names TEXT LIST...: sets `names` to TEXT's words (no globbing, no
# expansion: the text is data) or, if TEXT is blank, to LIST; exits 2 with
# "no exercise 'X' (exercises: LIST)" for a word not in LIST.
exercise_names() {
    local text=$1 word
    shift
    read -r -d '' -a names <<< "$text"
    [ ${#names[@]} -gt 0 ] || names=("$@")
    for word in "${names[@]}"; do
        case " $* " in
            *" $word "*) ;;
            *) echo "$tool: no exercise '$word' (exercises: $*)" >&2; exit 2 ;;
        esac
    done
}
