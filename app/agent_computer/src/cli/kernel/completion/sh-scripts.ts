// bash and zsh completion scripts. Both shells share the tables (plain `case` functions); only the driver that
// reads the command line and offers candidates differs. Every word in them passed model.ts's shellSafe.

import type { CompletionFlag, CompletionNode } from "./model.ts";

/** A shell-function-safe form of the binary name: agent-inbox-cli is agent_inbox_cli. */
export const functionId = (binary: string): string => binary.replace(/[^A-Za-z0-9_]/g, "_");

const flagValue = (flag: CompletionFlag): string | undefined => {
  if (flag.value === "none") return undefined;
  if (flag.value === "file") return "<file>";
  if (flag.value === "text") return "";
  return flag.value.choices.join(" ");
};

/** `_ac_<id>_words PATH`, `_ac_<id>_flags PATH` and `_ac_<id>_value PATH FLAG` (status 1: the flag takes no value). */
const tables = (id: string, nodes: readonly CompletionNode[]): string => {
  const words = nodes.map((n) => `    '${n.path}') echo '${n.words.join(" ")}' ;;`);
  const flags = nodes.map((n) => `    '${n.path}') echo '${n.flags.flatMap((f) => f.names).join(" ")}' ;;`);
  const values = nodes.flatMap((n) =>
    n.flags.flatMap((f) => {
      const value = flagValue(f);
      return value === undefined ? [] : f.names.map((name) => `    '${n.path} ${name}') echo '${value}' ;;`);
    }),
  );
  return [
    `_ac_${id}_words() {`,
    '  case "$1" in',
    ...words,
    "  esac",
    "}",
    `_ac_${id}_flags() {`,
    '  case "$1" in',
    ...flags,
    "  esac",
    "}",
    `_ac_${id}_value() {`,
    '  case "$1 $2" in',
    ...values,
    "    *) return 1 ;;",
    "  esac",
    "}",
  ].join("\n");
};

/**
 * The walk over the words before the cursor, the same in both shells: a flag that takes a value skips that value,
 * a known subcommand word extends the path, anything else (a positional) is passed over.
 */
const walk = (id: string, first: string, last: string): string =>
  [
    "  local ac_at= ac_word ac_flag= ac_skip= ac_i",
    `  for ((ac_i = ${first}; ac_i < ${last}; ac_i++)); do`,
    `    ac_word=\${words_[ac_i]}`,
    // bash splits --flag=value at the "=" (COMP_WORDBREAKS): the "=" is not the value.
    '    if [[ -n $ac_skip ]]; then [[ $ac_word == "=" ]] || ac_skip=; continue; fi',
    "    if [[ $ac_word == -* ]]; then",
    `      [[ $ac_word != *=* ]] && _ac_${id}_value "$ac_at" "$ac_word" >/dev/null && ac_skip=1 ac_flag=$ac_word`,
    "      continue",
    "    fi",
    `    if [[ " $(_ac_${id}_words "$ac_at") " == *" $ac_word "* ]]; then ac_at=\${ac_at:+$ac_at }$ac_word; fi`,
    "  done",
  ].join("\n");

export const bashScript = (binary: string, nodes: readonly CompletionNode[]): string => {
  const id = functionId(binary);
  return [
    `# bash completion for ${binary}, generated from its schemas by \`${binary} completion bash\`.`,
    `# Load it with: source <(${binary} completion bash)`,
    tables(id, nodes),
    `_ac_${id}() {`,
    `  local cur=\${COMP_WORDS[COMP_CWORD]} words_=("\${COMP_WORDS[@]}")`,
    walk(id, "1", "COMP_CWORD"),
    "  COMPREPLY=()",
    "  if [[ -n $ac_skip ]]; then",
    "    local ac_values",
    '    [[ $cur == "=" ]] && cur=',
    `    ac_values=$(_ac_${id}_value "$ac_at" "$ac_flag")`,
    '    if [[ $ac_values == "<file>" ]]; then mapfile -t COMPREPLY < <(compgen -f -- "$cur")',
    '    else mapfile -t COMPREPLY < <(compgen -W "$ac_values" -- "$cur"); fi',
    "    return 0",
    "  fi",
    `  if [[ $cur == -* ]]; then mapfile -t COMPREPLY < <(compgen -W "$(_ac_${id}_flags "$ac_at")" -- "$cur")`,
    `  else mapfile -t COMPREPLY < <(compgen -W "$(_ac_${id}_words "$ac_at")" -- "$cur"); fi`,
    "}",
    `complete -F _ac_${id} ${binary}`,
    "",
  ].join("\n");
};

/** Works both sourced (`source <(… completion zsh)` after compinit) and as `_<binary>` in a directory of $fpath. */
export const zshScript = (binary: string, nodes: readonly CompletionNode[]): string => {
  const id = functionId(binary);
  return [
    `#compdef ${binary}`,
    `# zsh completion for ${binary}, generated from its schemas by \`${binary} completion zsh\`.`,
    `# Load it with: source <(${binary} completion zsh) after compinit, or save it as _${binary} in a directory of $fpath.`,
    tables(id, nodes),
    `_ac_${id}() {`,
    `  local cur=\${words[CURRENT]}`,
    "  local -a words_ ac_list",
    `  words_=("\${words[@]}")`,
    walk(id, "2", "CURRENT"),
    "  if [[ -n $ac_skip ]]; then",
    "    local ac_values",
    `    ac_values=$(_ac_${id}_value "$ac_at" "$ac_flag")`,
    '    if [[ $ac_values == "<file>" ]]; then _files; return; fi',
    `    ac_list=(\${=ac_values})`,
    `  elif [[ $cur == -* ]]; then ac_list=(\${=$(_ac_${id}_flags "$ac_at")})`,
    `  else ac_list=(\${=$(_ac_${id}_words "$ac_at")}); fi`,
    "  compadd -a ac_list",
    "}",
    `compdef _ac_${id} ${binary}`,
    `if [[ \${funcstack[1]} == _${binary} ]]; then _ac_${id} "$@"; fi`,
    "",
  ].join("\n");
};
