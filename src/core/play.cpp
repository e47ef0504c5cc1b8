#include "play.hpp"

#include <algorithm>

namespace low {

namespace {

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Frame frame_of(const Game& g, int width, int height) {
    Frame f;
    f.player = g.decider();
    f.offsets = (int)g.cards().shot_offsets.size();
    if (g.variant().bordered) return f;
    int minx = 0, maxx = WIDTH - 1, miny = 0, maxy = HEIGHT - 1;
    const auto& units = g.units();
    if (!units.empty()) {
        minx = miny = INT32_MAX, maxx = maxy = INT32_MIN;
        for (const Unit& u : units) {
            minx = std::min(minx, sq_x(u.sq)), maxx = std::max(maxx, sq_x(u.sq));
            miny = std::min(miny, sq_y(u.sq)), maxy = std::max(maxy, sq_y(u.sq));
        }
    }
    f.w = width, f.h = height;
    f.ox = floor_div(minx + maxx, 2) - width / 2;
    f.oy = floor_div(miny + maxy, 2) - height / 2;
    return f;
}

int world_dir(int dx, int dy) {
    for (int d = 0; d < 8; ++d) {
        if (DX[d] == dx && DY[d] == dy) return d;
    }
    return -1;
}

int encode(const Game& g, const Frame& f, const Action& a) {
    int N = f.n(), T = f.offsets;
    int shoot0 = 6 * N, advance0 = shoot0 + N * T, move0 = advance0 + 8 * N, recall0 = move0 + 8 * N;
    switch (a.kind) {
        case A_DEPLOY: {
            const auto& hand = g.hand(f.player);
            int slot = (int)(std::find(hand.begin(), hand.end(), a.card) - hand.begin());
            int k = f.index(a.to);
            if (k < 0 || slot >= (int)hand.size() || slot >= 6) return -1;  // not in the hand: no id
            return slot * N + k;
        }
        case A_SHOOT: {
            int k = f.index(a.from);
            int dx = sq_x(a.to) - sq_x(a.from), dy = sq_y(a.to) - sq_y(a.from);
            int t = f.player == 2 ? g.cards().offset_index(-dx, -dy) : g.cards().offset_index(dx, dy);
            if (k < 0 || t < 0) return -1;
            return shoot0 + k * T + t;
        }
        case A_ADVANCE:
        case A_MOVE: {
            int k = f.index(a.from);
            int d = world_dir(sq_x(a.to) - sq_x(a.from), sq_y(a.to) - sq_y(a.from));
            if (k < 0 || d < 0) return -1;
            return (a.kind == A_ADVANCE ? advance0 : move0) + k * 8 + f.dir(d);
        }
        case A_RECALL: {
            int k = f.index(a.from);
            return k < 0 ? -1 : recall0 + k;
        }
        case A_DRAW:
            return recall0 + N;
        default:
            return recall0 + N + 1;
    }
}

bool decode(const Game& g, const Frame& f, int id, Action& out) {
    int N = f.n(), T = f.offsets;
    int shoot0 = 6 * N, advance0 = shoot0 + N * T, move0 = advance0 + 8 * N, recall0 = move0 + 8 * N;
    if (id < 0 || id >= f.num_actions()) return false;
    out = Action{};
    if (id < shoot0) {
        int slot = id / N;
        const auto& hand = g.hand(f.player);
        if (slot >= (int)hand.size() || hand[slot] < 0) return false;
        // A deployment names the first slot that holds its card.
        if (std::find(hand.begin(), hand.end(), hand[slot]) != hand.begin() + slot) return false;
        out.kind = A_DEPLOY, out.card = hand[slot], out.to = f.square(id % N);
        return true;
    }
    if (id < advance0) {
        int k = (id - shoot0) / T, t = (id - shoot0) % T;
        auto [right, forward] = g.cards().shot_offsets[t];
        int s = f.player == 2 ? -1 : 1;
        out.kind = A_SHOOT, out.from = f.square(k);
        out.to = make_sq(sq_x(out.from) + right * s, sq_y(out.from) + forward * s);
        return true;
    }
    if (id < recall0) {
        bool adv = id < move0;
        int r = id - (adv ? advance0 : move0);
        int k = r / 8, d = f.dir(r % 8);  // the half turn is its own inverse
        out.kind = adv ? A_ADVANCE : A_MOVE, out.from = f.square(k);
        out.to = step(out.from, d);
        return true;
    }
    if (id < recall0 + N) {
        out.kind = A_RECALL, out.from = f.square(id - recall0);
        return true;
    }
    out.kind = id == recall0 + N ? A_DRAW : A_PASS;
    return true;
}

namespace {

// What a unit's attackers deal it already, a shot at it included.
int melee_on(const Game& g, const Unit& w) {
    int total = w.shot_damage > 0 ? w.shot_damage : 0;
    for (int e = 0; e < w.n_attacks; ++e) {
        if (!(g.units()[g.unit_at(w.attack_sq[e])].flags & SHOT)) total += w.attack_val[e];
    }
    return total;
}

}  // namespace

bool hits(const Game& g, const Action& a) {
    int player = g.to_move(), enemy = 3 - player;
    if (a.kind == A_SHOOT) {
        const Unit& w = g.units()[g.unit_at(a.to)];
        const Unit& s = g.units()[g.unit_at(a.from)];
        return melee_on(g, w) + g.kind(s).damage > g.kind(w).defence;
    }
    if (a.kind != A_DEPLOY) return false;
    const Kind& k = g.cards().kinds[player][a.card];
    for (int i = 0; i < k.n_attacks; ++i) {
        int wi = g.unit_at(step(a.to, k.attack_dir[i]));
        if (wi < 0) continue;
        const Unit& w = g.units()[wi];
        if (w.owner == enemy && melee_on(g, w) + k.attack_val[i] > g.kind(w).defence) return true;
    }
    return false;
}

// The eliminating deployments of the bordered mat's pre-deployment phase (play.hpp): a deployment
// on ``t`` eliminates ``w`` when an attack of the card points from ``t`` at ``w`` with a value
// above what ``w`` still resists, so a card's eliminating squares are the enemy units' squares
// stepped back along its attacks: a few bit operations instead of a test per deployment.
int eliminating_deployments(const Game& g, uint64_t hit[HAND_LIMIT]) {
    int player = g.to_move(), enemy = 3 - player;
    struct Target {
        Sq sq;
        int need;  // an attack above this value eliminates
    };
    Target targets[WIDTH * HEIGHT];
    int nt = 0;
    for (const Unit& w : g.units()) {
        if (w.owner == enemy) targets[nt++] = Target{w.sq, g.kind(w).defence - melee_on(g, w)};
    }
    const DeployPlan& plan = g.plan();
    int n_hit = 0;
    for (int c = 0; c < plan.n; ++c) {
        const Kind& k = g.cards().kinds[player][plan.card[c]];
        uint64_t b = 0;
        for (int t = 0; t < nt; ++t) {
            for (int i = 0; i < k.n_attacks; ++i) {
                if (k.attack_val[i] <= targets[t].need) continue;
                int d = (k.attack_dir[i] + 4) & 7;
                int x = sq_x(targets[t].sq) + DX[d], y = sq_y(targets[t].sq) + DY[d];
                if (x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT) b |= 1ULL << (x * HEIGHT + y);
            }
        }
        hit[c] = b & plan.squares[c];
        n_hit += __builtin_popcountll(hit[c]);
    }
    return n_hit;
}

namespace {

// The greedy policy's action in the pre-deployment phase of the bordered mat: uniform over the
// shots and deployments that eliminate at once, else uniform over all of them (the choice of
// hits() over the whole listing, found with the bitboards above).
Action greedy_pre(const Game& g, Rng& rng, std::vector<Action>& buf, std::vector<Action>& good) {
    buf.clear();
    g.shots(buf);
    good.clear();
    for (const Action& a : buf) {
        if (hits(g, a)) good.push_back(a);
    }
    const DeployPlan& plan = g.plan();
    uint64_t hit[HAND_LIMIT];
    int n_hit = eliminating_deployments(g, hit);
    uint32_t total = (uint32_t)good.size() + (uint32_t)n_hit;
    if (!total) {
        uint32_t r = rng.below((uint32_t)(buf.size() + g.deploy_count()));
        return r < buf.size() ? buf[r] : g.deploy_at((int)(r - buf.size()));
    }
    uint32_t r = rng.below(total);
    if (r < good.size()) return good[r];
    r -= (uint32_t)good.size();
    for (int c = 0; c < plan.n; ++c) {
        uint32_t n = (uint32_t)__builtin_popcountll(hit[c]);
        if (r < n) {
            uint64_t b = hit[c];
            for (; r > 0; --r) b &= b - 1;
            int bit = __builtin_ctzll(b);
            return Action{A_DEPLOY, plan.card[c], 0, make_sq(bit / HEIGHT, bit % HEIGHT)};
        }
        r -= n;
    }
    return Action{};  // unreachable: r < total
}

}  // namespace

int playout(Game& g, Rng& rng, int policy, int max_turns, std::vector<Action>& buf) {
    int start = g.turn(), played = 0;
    static thread_local std::vector<Action> good;
    while (!g.over() && (max_turns < 0 || g.turn() - start < max_turns)) {
        if (policy == UNIFORM && g.phase() == PRE) {
            // Uniform over shots + deployments without listing the deployments.
            g.resolve_start();
            if (g.phase() == PRE) {
                buf.clear();
                g.shots(buf);
                uint32_t r = rng.below((uint32_t)(buf.size() + g.deploy_count()));
                Action a = r < buf.size() ? buf[r] : g.deploy_at((int)(r - buf.size()));
                g.push(a, nullptr);
                ++played;
                continue;
            }
        }
        if (policy == GREEDY && g.phase() == PRE && g.variant().bordered) {
            // The eliminating deployments found from the enemy units' side (bitboards), not by
            // testing every deployment: the same choice as below, at a fraction of the cost.
            g.resolve_start();
            if (g.phase() == PRE) {
                g.push(greedy_pre(g, rng, buf, good), nullptr);
                ++played;
                continue;
            }
        }
        g.legal(buf);
        const Action* choice = nullptr;
        if (policy == GREEDY) {
            good.clear();
            for (const Action& a : buf) {
                if (hits(g, a)) good.push_back(a);
            }
            if (!good.empty()) choice = &good[rng.below((uint32_t)good.size())];
        }
        if (!choice) choice = &buf[rng.below((uint32_t)buf.size())];
        Action a = *choice;
        g.push(a, nullptr);
        ++played;
    }
    return played;
}

void deal(Game& g, const std::vector<int16_t>& deck1, const std::vector<int16_t>& deck2, Rng& rng) {
    const std::vector<int16_t>* decks[3] = {nullptr, &deck1, &deck2};
    for (int p = 1; p <= 2; ++p) {
        std::vector<int16_t> deck = *decks[p];
        auto general = std::find_if(deck.begin(), deck.end(), [&](int16_t c) { return g.cards().kinds[1][c].general; });
        if (general == deck.end()) throw std::invalid_argument("a deck holds exactly one general");
        int16_t gen = *general;
        deck.erase(general);
        for (size_t i = deck.size() - 1; i > 0; --i) std::swap(deck[i], deck[rng.below((uint32_t)(i + 1))]);
        size_t in_hand = std::min<size_t>(5, deck.size());
        std::vector<int16_t> hand(deck.begin(), deck.begin() + (long)in_hand);
        hand.push_back(gen);
        g.set_cards(p, std::move(hand), std::vector<int16_t>(deck.begin() + (long)in_hand, deck.end()));
    }
    g.start_turn();
}

}  // namespace low
