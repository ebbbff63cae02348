/**
 * Folds text for case- and accent-insensitive search: NFD, diacritics removed, lower case,
 * runs of white space collapsed.
 */
export const foldForSearch = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
