/** An ILIKE pattern for text that contains `text`: the `%`, `_` and `\` typed in a search box match themselves. */
export const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
