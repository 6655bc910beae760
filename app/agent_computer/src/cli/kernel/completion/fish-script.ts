// The fish completion script: the same tables as the bash and zsh ones (sh-scripts.ts) in fish's `switch`, and one
// function that reads the command line and prints the candidates (fish filters them by what is typed).

import type { CompletionNode } from "./model.ts";
import { functionId } from "./sh-scripts.ts";

export const fishScript = (binary: string, nodes: readonly CompletionNode[]): string => {
  const id = functionId(binary);
  const cases = (rows: string[]) => rows.join("\n");
  const words = nodes.map((n) => `        case '${n.path}'\n            echo '${n.words.join(" ")}'`);
  const flags = nodes.map((n) => `        case '${n.path}'\n            echo '${n.flags.flatMap((f) => f.names).join(" ")}'`);
  const values = nodes.flatMap((n) =>
    n.flags.flatMap((f) => {
      if (f.value === "none") return [];
      const value = f.value === "file" ? "<file>" : f.value === "text" ? "" : f.value.choices.join(" ");
      return f.names.map((name) => `        case '${n.path} ${name}'\n            echo '${value}'`);
    }),
  );
  return `# fish completion for ${binary}, generated from its schemas by \`${binary} completion fish\`.
# Load it with: ${binary} completion fish | source, or save it as ~/.config/fish/completions/${binary}.fish
function __ac_${id}_words
    switch "$argv[1]"
${cases(words)}
    end
end
function __ac_${id}_flags
    switch "$argv[1]"
${cases(flags)}
    end
end
function __ac_${id}_value
    switch "$argv[1] $argv[2]"
${cases(values)}
        case '*'
            return 1
    end
end
function __ac_${id}_complete
    set -l typed (commandline -opc)
    set -l cur (commandline -ct)
    set -l at ''
    set -l skip 0
    for word in $typed[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            if not string match -q -- '*=*' $word; and __ac_${id}_value "$at" $word >/dev/null
                set skip 1
            end
            continue
        end
        if contains -- $word (string split -n ' ' -- (__ac_${id}_words "$at"))
            set at (string trim -- "$at $word")
        end
    end
    if test $skip = 1
        set -l values (__ac_${id}_value "$at" $typed[-1])
        if test "$values" = '<file>'
            __fish_complete_path $cur
        else
            string split -n ' ' -- $values
        end
    else if string match -q -- '-*' $cur
        string split -n ' ' -- (__ac_${id}_flags "$at")
    else
        string split -n ' ' -- (__ac_${id}_words "$at")
    end
end
complete -c ${binary} -f -a '(__ac_${id}_complete)'
`;
};
