/* The server's facts, in the page's language: the built-in bots (weakest first), the core armies
 * and the deck-building limits. Every page carries them in <script type="application/json"
 * id="facts"> (base.html, lordsofwar/web/facts.py); the scripts keep no copy of them.
 *
 *   BOTS[0]          → {name: "random", player_name: "Random bot", title: "Random", blurb: "..."}
 *   ARMIES[0]        → {name: "orcs", label: "Orcs", word: "orcs"}  (word: inside a sentence)
 *   DECK.counts.elite → 4;  DECK.size → 36
 */

/**
 * @typedef {{name: string, player_name: string, title: string, blurb: string}} BotFact
 * @typedef {{name: string, label: string, word: string}} ArmyFact
 * @typedef {{size: number, ranks: {rank: string, count: number}[], classes: string[], name_limit: number, file_limit: number}} DeckFact
 * @typedef {{bots: BotFact[], armies: ArmyFact[], deck: DeckFact}} Facts
 */

const el = document.getElementById('facts');
if (!el) throw new Error('this page carries no #facts block (base.html)');
/** @type {Facts} */
const facts = JSON.parse(el.textContent || '');

/** The built-in bots, weakest first. */
export const BOTS = facts.bots;
/** The core armies, in the rules' order. */
export const ARMIES = facts.armies;
/**
 * A deck's size, its ranks in order with the number of cards of each (clarifications 8.4), the
 * unit classes and the limits of a deck's name and of a deck file.
 */
export const DECK = {
  size: facts.deck.size,
  ranks: facts.deck.ranks.map((r) => r.rank),
  /** @type {Record<string, number>} */
  counts: Object.fromEntries(facts.deck.ranks.map((r) => [r.rank, r.count])),
  classes: facts.deck.classes,
  nameLimit: facts.deck.name_limit,
  fileLimit: facts.deck.file_limit,
};
