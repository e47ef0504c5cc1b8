/* The mat and card drawing shared by the game page, the replay and the deck editor: one import for
 * all of it. Each part lives in a module of its own:
 *   cards.js      the card catalogue (loadCards, CARDS, card, cardName) and a card face (cardEl)
 *   magnifier.js  the magnified card (magnify) and the pop-up beside a name (showPreview, placePop)
 *   mat.js        squares (parseSq, sqName, norm) and the mat (renderMat, entrySquares, fitCellSize)
 *   log.js        log entries in words (describeEntry, actionText, entryEl, logHeading, resultText)
 *   panels.js     the player panels' parts (scoreEl, fillPanelsButton, armyTag, deckCount)
 *   words.js      the data's words in the page's language (RANK_ABBR, DIRS, armyWords, ...)
 */

export * from './cards.js';
export * from './magnifier.js';
export * from './mat.js';
export * from './log.js';
export * from './panels.js';
export * from './words.js';
export { store, setHighContrast, applyHighContrast } from './prefs.js';
