#include "batch.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "search.hpp"

namespace low {

namespace {

inline uint8_t clamp8(int x) { return (uint8_t)std::min(std::max(x, 0), 255); }

void card_features(const Kind& k, float* out) {
    // A card in its own frame (front first): the features of one hand slot.
    out[0] = 1;
    out[1] = (float)k.defence;
    for (int d = 0; d < 8; ++d) out[2 + d] = (float)k.card_attack[d];
    out[10] = (float)k.damage;
    out[11] = (float)k.targets.size();
    out[12 + k.cls] = 1;
    out[17] = k.command;
    out[18] = k.general;
    out[19] = (float)k.n_moves;
}

}  // namespace

void observe(const Game& g, const Frame& f, uint8_t* planes, float* info) {
    const int N = f.n();
    std::memset(planes, 0, (size_t)PLANES * N);
    std::fill(info, info + INFO, 0.0f);
    const int me = f.player, them = 3 - me;
    auto at = [&](int plane, int k) -> uint8_t& { return planes[(size_t)plane * N + k]; };
    for (const Unit& u : g.units()) {
        int k = f.index(u.sq);
        if (k < 0) continue;
        const Kind& kd = g.kind(u);
        bool own = u.owner == me;
        at(own ? 0 : 1, k) = 1;
        for (int w = 0; w < 8; ++w) {
            if (kd.attack_at[w]) at((own ? 2 : 10) + f.dir(w), k) = clamp8(kd.attack_at[w]);
        }
        at(18, k) = clamp8(kd.defence);
        at(19, k) = clamp8(kd.damage);
        at(20, k) = kd.command;
        at(21, k) = kd.general;
        at(22 + kd.cls, k) = 1;
        at(27, k) = kd.n_moves > 0;
        at(28, k) = u.n_attacks > 0;
        static constexpr uint8_t FLAGS[6] = {DEPLOYED, SUPPORTED, SHOT, TOOK_PART, MOVED, ENGAGED_AT_START};
        for (int i = 0; i < 6; ++i) at(29 + i, k) = (u.flags & FLAGS[i]) != 0;
        at(35, k) = clamp8(u.shot_damage);
    }
    const AdvanceRound* adv = g.advance();
    if (adv && g.phase() == ADVANCE) {
        for (const auto& [b, squares] : adv->candidates) {
            int wi = g.unit_at(b);
            if (wi < 0 || g.units()[wi].owner != me) continue;
            int k = f.index(b);
            if (k >= 0) at(36, k) = 1;
            for (Sq t : squares) {
                int kt = f.index(t);
                if (kt >= 0 && std::find(adv->taken.begin(), adv->taken.end(), t) == adv->taken.end()) at(37, kt) = 1;
            }
        }
    }
    const auto& kinds = g.cards().kinds[1];
    const auto& mine = g.hand(me);
    for (size_t i = 0; i < mine.size() && i < (size_t)HAND_LIMIT; ++i) {
        float* slot = info + i * HAND_FEATURES;
        if (mine[i] >= 0) card_features(kinds[mine[i]], slot);
        else slot[0] = 1;
    }
    const auto& theirs = g.hand(them);
    for (size_t i = 0; i < theirs.size() && i < (size_t)HAND_LIMIT; ++i) {
        float* slot = info + (HAND_LIMIT + i) * HAND_FEATURES;
        if (g.variant().visible && theirs[i] >= 0) card_features(kinds[theirs[i]], slot);
        else slot[0] = 1;  // a card is there; what it is stays hidden
    }
    float* s = info + 2 * HAND_LIMIT * HAND_FEATURES;
    s[0] = (float)mine.size();
    s[1] = (float)theirs.size();
    s[2] = (float)g.deck(me).size();
    s[3] = (float)g.deck(them).size();
    s[4] = (float)g.lost(me).size();
    s[5] = (float)g.lost(them).size();
    s[6] = (float)g.commands_eliminated(them);
    s[7] = (float)g.commands_eliminated(me);
    s[8] = (float)g.variant().units_to_win;
    s[9] = (float)g.variant().commands_to_win;
    s[10] = (float)g.quiet_turns();
    s[11] = (float)g.variant().no_progress_turns;
    s[12] = (float)g.turn();
    s[13] = g.phase() == PRE;
    s[14] = g.phase() == ADVANCE;
    s[15] = g.phase() == POST;
    s[16] = g.to_move() == me;
    s[17] = g.forced();
    s[18] = g.variant().intermediate;
    s[19] = g.variant().visible;
    s[20] = g.variant().bordered;
    s[21] = (g.generals_lost() & (1 << me)) != 0;
    s[22] = (g.generals_lost() & (1 << them)) != 0;
    s[23] = g.turn() <= 2;
}

int write_mask(Game& g, const Frame& f, uint8_t* mask, std::vector<Action>& buf, int& missing) {
    std::memset(mask, 0, (size_t)f.num_actions());
    int count = 0;
    missing = 0;
    auto set = [&](int id) {
        if (id < 0) {
            ++missing;
        } else {
            mask[id] = 1;
            ++count;
        }
    };
    if (g.phase() == PRE && !g.over() && g.variant().bordered) {
        g.resolve_start();  // as Game::legal settles the start of the turn
        if (g.phase() == PRE) {
            // Game::legal's listing there, the shots and the deployment plan, with the plan's ids
            // written from its bitboards (encode's: the card's first slot in the hand, the square).
            buf.clear();
            g.shots(buf);
            for (const Action& a : buf) set(encode(g, f, a));
            const DeployPlan& plan = g.plan();
            const auto& hand = g.hand(f.player);
            const int N = f.n();
            for (int i = 0; i < plan.n; ++i) {
                const int slot = (int)(std::find(hand.begin(), hand.end(), plan.card[i]) - hand.begin());
                const bool held = slot < (int)hand.size() && slot < 6;
                for (uint64_t b = plan.squares[i]; b; b &= b - 1) {
                    const int bit = __builtin_ctzll(b);
                    const int k = held ? f.index(make_sq(bit / HEIGHT, bit % HEIGHT)) : -1;
                    set(k < 0 ? -1 : slot * N + k);
                }
            }
            return count;
        }
    }
    g.legal(buf);
    for (const Action& a : buf) set(encode(g, f, a));
    return count;
}

Batch::Batch(std::shared_ptr<const CardTable> c, const Variant& var, std::vector<std::vector<int16_t>> d, int n,
             uint64_t seed, int w, int h)
    : cards(std::move(c)), v(var), decks(std::move(d)), rng(seed), width(w), height(h), size(n) {
    if (decks.empty()) throw std::invalid_argument("a batch needs at least one deck");
    if (v.bordered) width = WIDTH, height = HEIGHT;
    games.reserve(n);
    for (int b = 0; b < n; ++b) games.emplace_back(cards, v);
    finished = games;
    has_finished.assign((size_t)n, 0);
    dealt.assign((size_t)n, {0, 0, 0});
    shown.assign((size_t)n, {});
    buf.reserve(256);
}

int Batch::num_actions() const {
    Frame f;
    f.w = width, f.h = height, f.offsets = (int)cards->shot_offsets.size();
    return f.num_actions();
}

void Batch::deal_one(int b) {
    games[b] = Game(cards, v);
    int d1 = (int)rng.below((uint32_t)decks.size());
    int d2 = (int)rng.below((uint32_t)decks.size());
    dealt[(size_t)b] = {0, d1, d2};
    shown[(size_t)b].clear();
    deal(games[b], decks[(size_t)d1], decks[(size_t)d2], rng);
}

bool Batch::write_one(int b, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play) {
    Game& g = games[b];
    Frame f = frame(g);
    size_t N = (size_t)width * height, A = (size_t)num_actions();
    int missing = 0;
    int count = write_mask(g, f, mask + b * A, buf, missing);
    outside_frame += missing;
    // After the listing, which resolves the start of the turn (3.4: no deployment, post phase).
    observe(g, f, planes + b * PLANES * N, info + b * INFO);
    to_play[b] = (int8_t)g.decider();
    return count > 0;
}

void Batch::set_opponent(int kind, std::vector<int8_t> learner_seats, GreedyParams params, uint64_t seed) {
    if (kind < NO_OPPONENT || kind > SEARCH_OPPONENT) throw std::invalid_argument("unknown opponent");
    if (kind == SEARCH_OPPONENT && !search) throw std::invalid_argument("the search opponent's settings come first");
    if (kind != NO_OPPONENT && learner_seats.size() != (size_t)size)
        throw std::invalid_argument("one learner seat per game");
    for (int8_t s : learner_seats) {
        if (s != 1 && s != 2) throw std::invalid_argument("a learner's seat is 1 or 2");
    }
    if (kind == GREEDY_OPPONENT && params.values.size() != cards->ids.size())
        throw std::invalid_argument("the greedy opponent needs one value per card");
    opponent = kind;
    seats = std::move(learner_seats);
    greedy = Greedy(std::move(params));
    opponent_rng = Rng(seed);
}

void Batch::set_search(const SearchSpec& spec) {
    if (spec.value.size() != cards->ids.size()) throw std::invalid_argument("the search opponent needs one value per card");
    if (spec.iterations < 1) throw std::invalid_argument("the search opponent needs an iteration cap");
    search = std::make_shared<SearchSpec>(spec);
    search->seconds = 0;
}

long Batch::greedy_scores(Greedy& bot, int32_t* ids, float* raw, int64_t* ptr, long cap) {
    std::vector<Action> actions;
    std::vector<GreedyScore> scores;
    std::vector<std::pair<int, int>> order;  // (id, index in actions)
    long n = 0;
    ptr[0] = 0;
    for (int b = 0; b < size; ++b) {
        Game& g = games[(size_t)b];
        if (!g.over()) {
            bot.evaluate_all(g, actions, scores);
            Frame f = frame(g);
            order.clear();
            for (size_t i = 0; i < actions.size(); ++i) {
                int id = encode(g, f, actions[i]);
                if (id >= 0) order.emplace_back(id, (int)i);
            }
            std::sort(order.begin(), order.end());
            if (n + (long)order.size() > cap) return -1;
            for (const auto& [id, i] : order) {
                ids[n] = id;
                raw[3 * n] = (float)scores[(size_t)i].score;
                raw[3 * n + 1] = (float)scores[(size_t)i].preference;
                raw[3 * n + 2] = (float)scores[(size_t)i].exposure;
                ++n;
            }
        }
        ptr[b + 1] = n;
    }
    return n;
}

void Batch::opponent_view(int b, uint64_t seed, Game& view, std::vector<int16_t> pool[3]) const {
    const Game& g = games[(size_t)b];
    const auto& d = dealt[(size_t)b];
    const std::vector<int16_t>* lists[3] = {nullptr, &decks[(size_t)d[1]], &decks[(size_t)d[2]]};
    Rng r(seed);
    search_view(g, 3 - seats[(size_t)b], shown[(size_t)b], lists, r, view, pool);
}

void Batch::end_game(int b, float* rewards, uint8_t* done) {
    const Game& g = games[b];
    if (g.winner()) {
        rewards[2 * b + g.winner() - 1] += 1;
        rewards[2 * b + 2 - g.winner()] -= 1;
    }
    done[b] = 1;
    ++episodes;
    finished[b] = g;
    has_finished[b] = 1;
    deal_one(b);
}

void Batch::opponent_plays(int b, float* rewards, uint8_t* done) {
    if (opponent == NO_OPPONENT) return;
    Game& g = games[b];  // deal_one deals into the same slot
    while (g.decider() != seats[b]) {
        Action a;
        if (opponent == GREEDY_OPPONENT) {
            a = greedy.choose(g, opponent_rng);
        } else if (opponent == SEARCH_OPPONENT) {
            g.legal(buf);
            if (buf.size() == 1) {
                a = buf[0];  // as the search bot: one legal action is played without a search
            } else {
                Game view(cards, v);
                opponent_view(b, opponent_rng.next(), view, search->pool);
                search->seed = opponent_rng.next();
                a = best_action(view, low::search(view, *search));
            }
        } else {
            g.legal(buf);
            a = buf[opponent_rng.below((uint32_t)buf.size())];
        }
        g.push(a, nullptr);
        ++steps, ++opponent_steps;
        if (g.over()) end_game(b, rewards, done);
    }
}

void Batch::settle(int b, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play, float* rewards, uint8_t* done,
                   uint8_t* truncated) {
    opponent_plays(b, rewards, done);
    while (!write_one(b, planes, info, mask, to_play)) {
        // No legal action has an id in the frame (units spread wider than it): the game is cut
        // short, as a draw, and a new one dealt.
        done[b] = truncated[b] = 1;
        ++episodes;
        finished[b] = games[b];
        has_finished[b] = 1;
        deal_one(b);
        opponent_plays(b, rewards, done);
    }
}

void Batch::reset(uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play) {
    std::fill(has_finished.begin(), has_finished.end(), 0);
    std::vector<float> rewards(2 * (size_t)size, 0.0f);
    std::vector<uint8_t> done((size_t)size, 0), truncated((size_t)size, 0);
    for (int b = 0; b < size; ++b) {
        deal_one(b);
        settle(b, planes, info, mask, to_play, rewards.data(), done.data(), truncated.data());
    }
}

int Batch::step(const int32_t* actions, uint8_t* planes, float* info, uint8_t* mask, int8_t* to_play, float* rewards,
                uint8_t* done, uint8_t* truncated) {
    const int A = num_actions();
    for (int b = 0; b < size; ++b) {
        int id = actions[b];
        if (id == SKIP) continue;
        if (id < 0 || id >= A || !mask[(size_t)b * A + id]) return b;
    }
    for (int b = 0; b < size; ++b) {
        rewards[2 * b] = rewards[2 * b + 1] = 0;
        done[b] = truncated[b] = 0;
        if (actions[b] == SKIP) continue;  // this game waits: its buffers stay as they are
        Game& g = games[b];
        Action a;
        decode(g, frame(g), actions[b], a);
        if (opponent == SEARCH_OPPONENT) note_shown(g, a, shown[(size_t)b]);
        g.push(a, nullptr);
        ++steps;
        if (g.over()) end_game(b, rewards, done);
        settle(b, planes, info, mask, to_play, rewards, done, truncated);
    }
    return -1;
}

void Batch::observe_finished(int b, int player, uint8_t* planes, float* info) const {
    // The game as its record loads (the position notation of a finished game holds no turn under
    // way), so the observation is the one a player's view of the finished game gives.
    Game g(cards, v);
    g.load(finished[(size_t)b].record());
    Frame f = frame(g);
    f.player = player;
    observe(g, f, planes, info);
}

namespace {

// The bytes of ``w`` that are not 0, counted (eight mask bytes at once).
inline int nonzero_bytes(uint64_t w) {
    constexpr uint64_t L = 0x7F7F7F7F7F7F7F7FULL;
    const uint64_t zero = ~(((w & L) + L) | w | L) >> 7;  // 1 in each byte that is 0
    return 8 - (int)((zero * 0x0101010101010101ULL) >> 56);  // the bytes summed in the top one
}

inline uint64_t word_at(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

}  // namespace

#if defined(__SSE2__)
// The bytes of the 16 at ``p`` that are not 0, as two 64-bit sums (low and high eight).
inline __m128i nonzero_sums(const uint8_t* p) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ones = _mm_andnot_si128(_mm_cmpeq_epi8(v, zero), _mm_set1_epi8(1));
    return _mm_sad_epu8(ones, zero);
}

inline int both_halves(__m128i sums) { return _mm_cvtsi128_si32(_mm_add_epi64(sums, _mm_unpackhi_epi64(sums, sums))); }
#endif

void scale_observations(const uint8_t* planes, const float* info, const float* scale, float* out, size_t rows,
                        size_t n, size_t info_n) {
    // Most plane bytes are 0, and 0 times a scale is +0: the planes' floats are cleared, then only
    // the bytes that are not 0 are scaled (found sixteen at a time where SSE2 is there).
    auto scaled = [](float v, float s) { return std::min(std::max(v * s, 0.0f), 1.0f); };
    const size_t width = n + info_n;
    for (size_t r = 0; r < rows; ++r) {
        const uint8_t* p = planes + r * n;
        const float* in = info + r * info_n;
        float* o = out + r * width;
        std::memset(o, 0, n * sizeof(float));
        size_t i = 0;
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128();
        for (; i + 16 <= n; i += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            unsigned set = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) & 0xFFFFu;
            for (; set; set &= set - 1) {
                const size_t j = i + (size_t)__builtin_ctz(set);
                o[j] = scaled((float)p[j], scale[j]);
            }
        }
#endif
        for (; i < n; ++i) {
            if (p[i]) o[i] = scaled((float)p[i], scale[i]);
        }
        for (size_t j = 0; j < info_n; ++j) o[n + j] = scaled(in[j], scale[n + j]);
    }
}

void Batch::sample(const uint8_t* mask, int32_t* actions) {
    // The k-th legal id, k drawn uniformly below their count: the mask read sixteen bytes at a
    // time where SSE2 is there (every x86-64 processor), else eight.
    const int A = num_actions();
    for (int b = 0; b < size; ++b) {
        const uint8_t* m = mask + (size_t)b * A;
        int count = 0, i = 0;
#if defined(__SSE2__)
        __m128i total = _mm_setzero_si128();
        for (; i + 16 <= A; i += 16) total = _mm_add_epi64(total, nonzero_sums(m + i));
        count = both_halves(total);
#endif
        for (; i + 8 <= A; i += 8) count += nonzero_bytes(word_at(m + i));
        for (; i < A; ++i) count += m[i] != 0;
        if (!count) {
            actions[b] = -1;
            continue;
        }
        int k = (int)rng.below((uint32_t)count);
        i = 0;
#if defined(__SSE2__)
        for (; i + 16 <= A; i += 16) {
            int c = both_halves(nonzero_sums(m + i));
            if (k < c) break;
            k -= c;
        }
#endif
        for (; i + 8 <= A; i += 8) {
            int c = nonzero_bytes(word_at(m + i));
            if (k < c) break;
            k -= c;
        }
        for (;; ++i) {
            if (m[i] && k-- == 0) break;
        }
        actions[b] = i;
    }
}

}  // namespace low
