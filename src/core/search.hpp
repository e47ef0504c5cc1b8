// Information-set Monte Carlo tree search (single observer, Cowling, Powley and Whitehouse 2012)
// on the core: the search bots, hints and analysis (docs/bots.md).
//
// The search starts from a view: the hidden cards (-1 entries) are sampled afresh for every
// iteration from each player's pool, so the tree is one tree over the searching player's
// information sets, shared by every sampled world. A child is keyed by what its action does
// (the card and squares), not by the world, and its exploration term counts the iterations in
// which it was available, as ISMCTS prescribes.
#pragma once

#include <memory>
#include <vector>

#include "net.hpp"
#include "play.hpp"

namespace low {

struct SearchSpec {
    int iterations = 1000;   // at most this many (0: no cap, the time budget alone)
    double seconds = 0;      // at most this long (0: no budget, the iteration cap alone)
    uint64_t seed = 0;
    double explore = 0.7;    // the UCB constant
    int playout_turns = 2;   // a playout plays this many turns past the leaf's, then evaluates (-1: to the end)
    int policy = GREEDY;     // the playout policy
    double scale = 30;       // material -> win probability: 1 / (1 + exp(-difference / scale))
    double base = 0;         // subtracted from the difference before the logistic (the search sets it)
    bool relative = false;   // judge leaves by the difference gained since the root (base = the root's)
    int widen = 0;           // progressive widening: a node has at most widen * visits^0.5 children (0: off)
    std::vector<float> value;            // per card index: what eliminating it is worth
    std::vector<int16_t> pool[3];        // per player: the cards that may fill that player's unknown entries
    // With a network (docs/bots.md, `marshal`): PUCT selection with the network's priors, and its
    // value at a new leaf in place of the playout (``mix`` > 0 blends in that much of the
    // playout's evaluation). ``explore``, ``widen`` and the expansion order are then unused
    // (unless ``prior_visits``, below).
    std::shared_ptr<const Net> net;
    double c_puct = 1.5;  // the weight of the prior term: c_puct * P * sqrt(available) / (1 + visits)
    double mix = 0;       // in [0, 1]: a leaf's result is (1 - mix) * network + mix * playout
    double hit_prior = 0; // added to the prior weight (the largest is 1) of an action that eliminates at once
    // Above 0: the tree is searched as without a network (UCB, ``widen``, the playout judging every
    // leaf) and the network only orders the expansions of a node visited at least this many times:
    // its untried action of the highest prior weight first (the priors made once per node;
    // ``hit_prior`` 1 puts the actions that eliminate at once first, in the network's order).
    int prior_visits = 0;
    // A network with an action head reads the greedy bot's judgement of each action: the bot's
    // settings for the game's card set and variant (required then).
    std::shared_ptr<const GreedyParams> greedy;
};

struct RootStat {
    Action action;
    int visits = 0;
    double mean = 0;  // the mean result for the searching player, in [0, 1]
};

struct SearchOut {
    std::vector<RootStat> root;  // in the order of the view's legal listing
    int iterations = 0;
    int nodes = 0;
    double seconds = 0;
};

// The win probability of ``g`` for player 1 as the search judges a leaf: 1 / 0 / 0.5 for a game
// over, else a logistic function of the difference in value eliminated.
double evaluate(const Game& g, const SearchSpec& spec);

// Replace the -1 entries of ``g`` (hands first, then decks, in order) with cards drawn at random
// from each player's pool. Throws std::invalid_argument when a pool is too small.
void fill_hidden(Game& g, const std::vector<int16_t> pool[3], Rng& rng, std::vector<int16_t>& scratch);

// Search from ``view`` for its decider. The view must have at least one legal action.
SearchOut search(const Game& view, const SearchSpec& spec);

// The action a search bot plays: the most visited root action, then the higher mean, then the
// first in the notation's text (as lordsofwar/bots/search.py sorts its analysis).
Action best_action(const Game& view, const SearchOut& out);

// What the other player has seen of the hand of the player about to play ``a`` in ``g``, brought
// up to date before ``a`` is pushed (lordsofwar.rules.knowledge.known_hands): a forced deployment
// shows the whole hand (3.4), a deployed card leaves it, a recalled unit goes back to it face up
// (7.3). ``known`` is that multiset of card indices.
void note_shown(const Game& g, const Action& a, std::vector<int16_t>& known);

// What a search bot of ``player`` decides from in ``g`` (lordsofwar/bots/search.py,
// sampling_spec, for decks whose lists both players know: standard armies): ``view`` is ``g``
// with both decks and the other player's hand hidden (unless hands are visible), the cards of
// ``known`` (the other's hand cards in the open) in its first hand slots, and a general nowhere
// in the open in its owner's first unknown hand slot (1.4: dealt into the opening hand, never
// sent back to the deck). ``pool[p]`` gets player p's cards that may fill p's unknown entries:
// ``lists[p]`` (the 36 cards p plays with) less p's cards in the open, less the generals.
void search_view(const Game& g, int player, const std::vector<int16_t>& known,
                 const std::vector<int16_t>* const lists[3], Rng& rng, Game& view, std::vector<int16_t> pool[3]);

}  // namespace low
