// Observations, legal-action masks and a batch of games stepped together (docs/core.md,
// "Observations" and "The batch API").
#pragma once

#include <array>

#include "greedy.hpp"

namespace low {

constexpr int PLANES = 38;        // per square of the frame
constexpr int HAND_FEATURES = 20;  // per hand slot
constexpr int SCALARS = 24;
constexpr int INFO = 2 * HAND_LIMIT * HAND_FEATURES + SCALARS;
constexpr int32_t SKIP = -1;  // an action id of Batch::step: this game does not move

// Who plays the seat that is not the learner's, inside Batch::reset and Batch::step.
enum Opponent { NO_OPPONENT = 0, RANDOM_OPPONENT = 1, GREEDY_OPPONENT = 2, SEARCH_OPPONENT = 3 };

struct SearchSpec;  // search.hpp

// What the decider may know, from the decider's side of the mat: ``planes`` holds
// PLANES * f.h * f.w bytes (plane, row, column), ``info`` INFO floats. Nothing hidden from the
// decider is read: not the opponent's hand (unless hands are visible), not the decks.
void observe(const Game& g, const Frame& f, uint8_t* planes, float* info);

// The RL observation vectors of ``rows`` decisions (lordsofwar.rl.config.flat_observations):
// row r of ``out`` (n + info_n floats) is planes row r (n bytes) then info row r (info_n floats),
// each number times its ``scale`` and capped to [0, 1], in float32 as NumPy's multiply and clip
// make them (the same numbers to the bit).
void scale_observations(const uint8_t* planes, const float* info, const float* scale, float* out, size_t rows,
                        size_t n, size_t info_n);

// Legal ids set to 1 in ``mask`` (f.num_actions() bytes, cleared first). Returns how many legal
// actions had an id; ``missing`` counts those outside the frame (unbordered mat only).
int write_mask(Game& g, const Frame& f, uint8_t* mask, std::vector<Action>& buf, int& missing);

// B games stepped at once with automatic reset. Buffers are owned by the caller.
struct Batch {
    std::shared_ptr<const CardTable> cards;
    Variant v;
    std::vector<std::vector<int16_t>> decks;
    Rng rng;
    int width, height, size;
    std::vector<Game> games;
    std::vector<Game> finished;  // per game: the last game that ended there (copied as it ended)
    std::vector<uint8_t> has_finished;
    std::vector<Action> buf;
    long steps = 0, episodes = 0, outside_frame = 0;
    // With an opponent, game b's learner plays seats[b] and the opponent the other seat: every
    // row then shows a decision of the learner's seat.
    int opponent = NO_OPPONENT;
    std::vector<int8_t> seats;
    Greedy greedy{GreedyParams{}};
    Rng opponent_rng{0};
    long opponent_steps = 0;
    // A search opponent: its settings (the seed and pools set per decision), and per game the
    // index in ``decks`` of each player's list (``dealt[b][p]``) and the learner's hand cards
    // the opponent has seen (``shown[b]``: a forced deployment's hand, recalled units).
    std::shared_ptr<SearchSpec> search;
    std::vector<std::array<int, 3>> dealt;
    std::vector<std::vector<int16_t>> shown;

    Batch(std::shared_ptr<const CardTable> cards, const Variant& v, std::vector<std::vector<int16_t>> decks, int size,
          uint64_t seed, int width, int height);
    Frame frame(const Game& g) const { return frame_of(g, width, height); }
    int num_actions() const;
    // Deal every game afresh and write all buffers.
    void reset(uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play);
    // Apply actions[b] to game b (every one checked first against ``mask``; returns the first
    // index whose action is not legal, or -1 when all were applied), then write the buffers.
    // actions[b] == SKIP leaves game b and its rows as they are (rewards, done, truncated 0).
    // A finished game gets its rewards (+1 win, -1 loss, 0 draw, per player), done = 1 and is
    // dealt again at once: the observation is then the new game's first; the finished game is
    // kept in ``finished[b]`` (its result, its last position) until game b ends again.
    int step(const int32_t* actions, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play, float* rewards,
             uint8_t* done, uint8_t* truncated);

    // The opponent of every game (before reset): RANDOM_OPPONENT (a uniformly random legal action)
    // or GREEDY_OPPONENT (the greedy bot with ``params``), the learner's seat per game, and the
    // seed of the opponent's own draws.
    void set_opponent(int kind, std::vector<int8_t> learner_seats, GreedyParams params, uint64_t seed);
    // SEARCH_OPPONENT's settings (before set_opponent): the search of ``spec`` (its iteration
    // cap alone ends each search: ``seconds`` is ignored, so a run repeats; its seed and pools
    // are drawn per decision). Every list of ``decks`` must be a list the learner's opponent
    // may know (a standard army's).
    void set_search(const SearchSpec& spec);
    // The greedy bot's judgement (Greedy::evaluate_all with ``bot``) of every legal action with
    // an id of every game, for its decider: per game its ids ascending in ids[ptr[b] .. ptr[b+1]),
    // with (score, preference, exposure) in raw[3 * k ..]; ptr holds size + 1 entries. Returns
    // the total, or -1 when ``cap`` entries are too few (nothing is then written past them).
    long greedy_scores(Greedy& bot, int32_t* ids, float* raw, int64_t* ptr, long cap);
    // What game b's opponent would search from now (search_view in search.hpp) and its pools.
    void opponent_view(int b, uint64_t seed, Game& view, std::vector<int16_t> pool[3]) const;

    // The observation of ``finished[b]`` (the last game that ended in slot b, as it ended) from
    // ``player``'s side, in that game's frame: what observe writes for a decider ``player``.
    void observe_finished(int b, int player, uint8_t* planes, float* info) const;

    // A uniformly random legal id per game, read from ``mask`` (a random policy for benchmarks
    // and baselines).
    void sample(const uint8_t* mask, int32_t* actions);

   private:
    void deal_one(int b);
    void end_game(int b, float* rewards, uint8_t* done);
    void opponent_plays(int b, float* rewards, uint8_t* done);
    // Game b's row for its learner: the opponent plays first; a game whose learner has no legal
    // id in the frame is cut short (done and truncated) and dealt again.
    void settle(int b, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play, float* rewards, uint8_t* done,
                uint8_t* truncated);
    bool write_one(int b, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play);
};

}  // namespace low
