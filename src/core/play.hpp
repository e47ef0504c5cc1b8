// What search and learning need beyond the rules: the integer action encoding (docs/core.md),
// a fast random generator, playouts and whole random games.
#pragma once

#include "engine.hpp"

namespace low {

// splitmix64: small, fast, and good enough for playouts and shuffles.
struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n) (Lemire's multiply-shift).
    uint32_t below(uint32_t n) { return (uint32_t)(((unsigned __int128)next() * n) >> 64); }
};

// The rectangle of squares that integer actions and observations are read in, from the
// decider's side of the mat (docs/core.md, "Integer actions").
struct Frame {
    int ox = 0, oy = 0, w = WIDTH, h = HEIGHT, player = 1, offsets = 0;
    int n() const { return w * h; }
    int num_actions() const { return 6 * n() + n() * offsets + 17 * n() + 2; }
    int index(Sq s) const {
        int i = sq_x(s) - ox, j = sq_y(s) - oy;
        if (i < 0 || i >= w || j < 0 || j >= h) return -1;
        if (player == 2) i = w - 1 - i, j = h - 1 - j;
        return j * w + i;
    }
    Sq square(int k) const {
        int i = k % w, j = k / w;
        if (player == 2) i = w - 1 - i, j = h - 1 - j;
        return make_sq(ox + i, oy + j);
    }
    // A world direction index as the decider sees it, and back (a half turn for player 2).
    int dir(int world) const { return player == 2 ? (world + 4) % 8 : world; }
};

Frame frame_of(const Game& g, int width, int height);
int world_dir(int dx, int dy);  // -1 when (dx, dy) is not a neighbour step
int encode(const Game& g, const Frame& f, const Action& a);  // -1: outside the frame
bool decode(const Game& g, const Frame& f, int id, Action& out);

enum Policy { UNIFORM = 0, GREEDY = 1 };

// Play on from ``g`` until the result, or until ``max_turns`` more turns have started (when
// max_turns >= 0). Returns the number of actions played.
int playout(Game& g, Rng& rng, int policy, int max_turns, std::vector<Action>& buf);

// The fast heuristic of the greedy policy: does ``a`` eliminate an enemy unit at once (or, for
// a declared shot, at the deployment's check)?
bool hits(const Game& g, const Action& a);

// In the pre-deployment phase of the bordered mat (after resolve_start), the deployments that
// eliminate at once, as one bitboard per card of g.plan() (bit x * 6 + y): exactly those of the
// listing for which hits() holds. Returns how many there are.
int eliminating_deployments(const Game& g, uint64_t hit[HAND_LIMIT]);

// A deal as notation.deal makes it (the general and five cards in hand), shuffled by ``rng``.
void deal(Game& g, const std::vector<int16_t>& deck1, const std::vector<int16_t>& deck2, Rng& rng);

}  // namespace low
