// Splits a printed command line into argv as a POSIX shell would, for tests that check what a person pastes.
// Only simple commands: an unquoted operator or expansion (| ; & < > ( ) ` $ and a leading #) is refused, since a
// hint or `next` line holding one would not run as the one command it shows.

const OPERATORS = new Set(["|", ";", "&", "<", ">", "(", ")", "`", "$"]);

export const shellWords = (line: string): string[] => {
  const words: string[] = [];
  let word: string | undefined;
  const push = (text: string) => {
    word = (word ?? "") + text;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in: ${line}`);
      push(line.slice(i + 1, end));
      i = end;
    } else if (c === '"') {
      let text = "";
      for (i++; i < line.length && line[i] !== '"'; i++) {
        const d = line[i] as string;
        if (d === "$" || d === "`") throw new Error(`an expansion inside "…" in: ${line}`);
        if (d === "\\" && i + 1 < line.length && '$`"\\\n'.includes(line[i + 1] as string)) text += line[++i];
        else text += d;
      }
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      push(text);
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new Error(`a trailing backslash in: ${line}`);
      push(line[++i] as string);
    } else if (OPERATORS.has(c) || (c === "#" && word === undefined) || (c === "~" && word === undefined)) {
      throw new Error(`an unquoted ${c} in: ${line}`);
    } else push(c);
  }
  if (word !== undefined) words.push(word);
  return words;
};
