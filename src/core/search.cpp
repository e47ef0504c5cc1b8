#include "search.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace low {

namespace {

// What an action does, independent of the sampled world: the card for a deployment (never the
// hand slot, which differs between worlds), the squares, the kind.
uint64_t key_of(const Action& a) {
    auto sq24 = [](Sq s) { return (uint64_t)((sq_x(s) + 2048) & 0xfff) << 12 | (uint64_t)((sq_y(s) + 2048) & 0xfff); };
    uint64_t first = a.kind == A_DEPLOY ? (uint64_t)(uint16_t)a.card : sq24(a.from);
    return (uint64_t)a.kind << 56 | first << 24 | sq24(a.to);
}

struct Node {
    Action action;        // the action that led here
    int player = 0;       // who chose it
    int visits = 0;
    int avail = 0;        // iterations in which it was legal (ISMCTS)
    double total = 0;     // sum of the results for ``player``
    std::vector<std::pair<uint64_t, int>> kids;  // sorted by key
    // With a network: exp(logit - the largest) per action key of the world the node was first
    // evaluated in, sorted by key; an action first met in another world gets their mean.
    std::vector<std::pair<uint64_t, float>> prior;
    float prior_rest = 1;
    bool evaluated = false;
};

// log(n) for the exploration term, from a table for the counts a search reaches.
double log_of(int n) {
    static const std::vector<double> table = [] {
        std::vector<double> t(1 << 18);
        for (size_t i = 1; i < t.size(); ++i) t[i] = std::log((double)i);
        return t;
    }();
    return (size_t)n < table.size() ? table[(size_t)n] : std::log((double)n);
}

int find_kid(const Node& n, uint64_t key) {
    auto it = std::lower_bound(n.kids.begin(), n.kids.end(), std::make_pair(key, -1));
    return it != n.kids.end() && it->first == key ? it->second : -1;
}

float prior_of(const Node& n, uint64_t key) {
    auto it = std::lower_bound(n.prior.begin(), n.prior.end(), std::make_pair(key, -HUGE_VALF));
    return it != n.prior.end() && it->first == key ? it->second : n.prior_rest;
}

// The network's judgement of ``g`` (its start of the turn settled, ``legal`` its listing):
// player 1's win probability, and the node's priors over ``legal`` when it has none yet (an
// action that eliminates at once gets ``hit_prior`` more, the largest prior weight being 1).
// ``greedy``: with an action head, the judge of every legal action the network reads.
double net_leaf(const Net& net, Game& g, const std::vector<Action>& legal, Node* node, float hit_prior,
                Greedy* greedy) {
    thread_local std::vector<int> ids;
    thread_local std::vector<uint64_t> keys;
    thread_local std::vector<float> logits, features;
    thread_local std::vector<uint8_t> kills;
    thread_local std::vector<Action> actions;
    ids.clear(), keys.clear(), kills.clear(), features.clear();
    if (node && !node->evaluated) {
        net.inputs(g, legal, greedy, actions, ids, features);
        for (const Action& a : actions) keys.push_back(key_of(a)), kills.push_back(hit_prior > 0 && hits(g, a));
    }
    logits.resize(ids.size());
    double v = net.evaluate(g, ids.data(), (int)ids.size(), logits.data(), features.empty() ? nullptr : features.data());
    if (node && !node->evaluated) {
        node->evaluated = true;
        float top = -HUGE_VALF;
        for (float l : logits) top = std::max(top, l);
        double sum = 0;
        node->prior.clear();
        for (size_t i = 0; i < ids.size(); ++i) {
            float w = std::exp(logits[i] - top) + (kills[i] ? hit_prior : 0.0f);
            node->prior.emplace_back(keys[i], w);
            sum += w;
        }
        std::sort(node->prior.begin(), node->prior.end());
        node->prior_rest = node->prior.empty() ? 1.0f : (float)(sum / node->prior.size());
    }
    double p = (v + 1) / 2;  // for the decider
    return g.decider() == 1 ? p : 1 - p;
}

}  // namespace

double evaluate(const Game& g, const SearchSpec& spec) {
    if (g.over()) return g.winner() == 1 ? 1.0 : g.winner() == 2 ? 0.0 : 0.5;
    double score = 0;  // value eliminated by player 1 minus value eliminated by player 2
    for (int16_t c : g.lost(2)) score += c >= 0 && (size_t)c < spec.value.size() ? spec.value[c] : 0;
    for (int16_t c : g.lost(1)) score -= c >= 0 && (size_t)c < spec.value.size() ? spec.value[c] : 0;
    return 1.0 / (1.0 + std::exp(-(score - spec.base) / spec.scale));
}

void fill_hidden(Game& g, const std::vector<int16_t> pool[3], Rng& rng, std::vector<int16_t>& scratch) {
    for (int p = 1; p <= 2; ++p) {
        size_t wanted = (size_t)std::count(g.hand(p).begin(), g.hand(p).end(), -1) +
                        (size_t)std::count(g.deck(p).begin(), g.deck(p).end(), -1);
        if (!wanted) continue;
        if (pool[p].size() < wanted)
            throw std::invalid_argument("player " + std::to_string(p) + "'s pool holds " +
                                        std::to_string(pool[p].size()) + " cards, " + std::to_string(wanted) +
                                        " are unknown");
        scratch = pool[p];
        for (size_t i = 0; i < wanted; ++i) std::swap(scratch[i], scratch[i + rng.below((uint32_t)(scratch.size() - i))]);
        g.reveal(p, scratch.data());
    }
}

SearchOut search(const Game& view, const SearchSpec& spec) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.seconds));
    Rng rng(spec.seed);
    SearchOut out;

    std::vector<Node> nodes(1);
    nodes.reserve(spec.iterations > 0 && spec.iterations < 65536 ? (size_t)spec.iterations + 1 : 65536);
    std::vector<Action> buf, fresh, root_legal;
    std::vector<float> weights;
    double root_q = 0.5;  // with a network: its value of the root for the searching player
    std::vector<int16_t> scratch;
    std::vector<int> path;
    {
        Game g = view;
        g.legal(root_legal);  // the searching player's own actions: no hidden card is needed
    }
    if (root_legal.empty()) throw std::invalid_argument("search: the view has no legal action");
    int me = view.decider();
    SearchSpec judge = spec;
    if (spec.relative) {
        judge.base = 0;
        double p1 = std::min(std::max(evaluate(view, judge), 1e-9), 1.0 - 1e-9);  // back to the difference
        judge.base = spec.scale * std::log(p1 / (1.0 - p1));
    }

    std::unique_ptr<Greedy> greedy;  // the network's judge of each action, with an action head
    if (spec.net && spec.net->has_action_head()) {
        if (!spec.greedy) throw std::invalid_argument("search: a network with an action head needs the greedy bot's settings");
        if (spec.greedy->values.size() != view.cards().ids.size())
            throw std::invalid_argument("search: the greedy bot's settings are for another card set");
        greedy = std::make_unique<Greedy>(*spec.greedy);
    }

    // With ``prior_visits``, the network only orders the expansions of well-visited nodes.
    const bool ordered = spec.net && spec.prior_visits > 0;
    Game g = view;
    while ((spec.iterations <= 0 || out.iterations < spec.iterations)) {
        if (spec.seconds > 0 && (out.iterations & 15) == 0 && Clock::now() >= deadline && out.iterations > 0) break;
        if (spec.seconds <= 0 && spec.iterations <= 0) break;
        ++out.iterations;
        g = view;  // assignment keeps the vectors' storage: no allocation per iteration
        fill_hidden(g, spec.pool, rng, scratch);
        int at = 0;
        path.clear();
        bool expanded = false;
        while (!g.over() && !expanded) {
            if (g.phase() == PRE) g.resolve_start();
            int player = g.decider();
            if (spec.net && !ordered) {
                // PUCT over the actions legal in this world: a child's prior is its share of the
                // node's prior weights among them; an untried action is judged as its parent is.
                g.legal(buf);
                if (buf.empty()) break;  // cannot happen in a legal position; stop the descent
                Node& node = nodes[at];
                if (!node.evaluated) {
                    double r1 = net_leaf(*spec.net, g, buf, &node, (float)spec.hit_prior, greedy.get());
                    if (at == 0) root_q = me == 1 ? r1 : 1 - r1;
                }
                double q_parent = at == 0 ? (player == me ? root_q : 1 - root_q)
                         : node.visits == 0 ? 0.5
                         : node.player == player ? node.total / node.visits
                                                 : 1 - node.total / node.visits;
                weights.clear();
                double sum = 0;
                for (const Action& a : buf) {
                    weights.push_back(prior_of(node, key_of(a)));
                    sum += weights.back();
                }
                double root_n = std::sqrt((double)std::max(node.visits, 1));
                int best_i = -1;
                double best_score = -1e300;
                for (size_t i = 0; i < buf.size(); ++i) {
                    int kid = find_kid(node, key_of(buf[i]));
                    double p = weights[i] / sum, score;
                    if (kid >= 0 && nodes[kid].visits > 0) {
                        Node& k = nodes[kid];
                        ++k.avail;
                        score = k.total / k.visits + spec.c_puct * p * std::sqrt((double)k.avail) / (1 + k.visits);
                    } else {
                        score = q_parent + spec.c_puct * p * root_n;
                    }
                    if (score > best_score) best_score = score, best_i = (int)i;
                }
                const Action a = buf[best_i];
                int kid = find_kid(nodes[at], key_of(a));
                if (kid < 0) {
                    Node n;
                    n.action = a;
                    n.player = player;
                    n.avail = 1;
                    kid = (int)nodes.size();
                    nodes.push_back(std::move(n));
                    auto& kids = nodes[at].kids;
                    uint64_t key = key_of(a);
                    kids.insert(std::lower_bound(kids.begin(), kids.end(), std::make_pair(key, -1)), {key, kid});
                    expanded = true;
                }
                g.push(a, nullptr);
                at = kid;
                path.push_back(kid);
                continue;
            }
            int best = -1;
            double best_score = -1e300;
            int kids_here = 0;
            auto consider = [&](int kid) {
                ++kids_here;
                Node& k = nodes[kid];
                ++k.avail;
                double score = k.total / k.visits + spec.explore * std::sqrt(log_of(k.avail) / k.visits);
                if (score > best_score) best_score = score, best = kid;
            };
            size_t n_legal = 0;
            bool listed = false;
            if (g.phase() == PRE && g.variant().bordered) {
                // Before the deployment on the bordered mat the legal actions are the shots and
                // the deployments of the turn's bitboards: each child is tested against them,
                // without listing the (up to hundreds of) deployments at every level.
                buf.clear();
                g.shots(buf);
                n_legal = buf.size() + (size_t)g.deploy_count();
                const DeployPlan& plan = g.plan();
                for (const auto& kid : nodes[at].kids) {
                    const Action& a = nodes[kid.second].action;
                    bool legal = false;
                    if (a.kind == A_DEPLOY) {
                        int bit = sq_x(a.to) * HEIGHT + sq_y(a.to);
                        for (int c = 0; c < plan.n; ++c) {
                            if (plan.card[c] == a.card) {
                                legal = (plan.squares[c] >> bit) & 1;
                                break;
                            }
                        }
                    } else if (a.kind == A_SHOOT) {
                        legal = std::find(buf.begin(), buf.end(), a) != buf.end();
                    }
                    if (legal) consider(kid.second);
                }
            } else {
                g.legal(buf);
                n_legal = buf.size();
                listed = true;
                for (const Action& a : buf) {
                    int kid = find_kid(nodes[at], key_of(a));
                    if (kid >= 0) consider(kid);
                }
            }
            if (!n_legal) break;  // cannot happen in a legal position; stop the descent
            bool may_widen = n_legal > (size_t)kids_here;
            if (may_widen && spec.widen > 0 && best >= 0) {
                double allowed = spec.widen * std::sqrt((double)nodes[best].visits + 1.0);
                may_widen = kids_here < allowed;
            }
            if (may_widen) {
                // Expand one untried action: one that eliminates at once first (the playout
                // policy's own heuristic), else any, at random.
                auto untried = [&](const Action& a) { return find_kid(nodes[at], key_of(a)) < 0; };
                Action a;
                bool chosen = false;
                if (ordered && nodes[at].visits >= spec.prior_visits) {
                    // The untried action of the highest prior weight (the first listed of equals),
                    // the node's priors made in this world at its first expansion past the mark.
                    if (!listed) g.legal(buf), listed = true;
                    Node& node = nodes[at];
                    if (!node.evaluated) net_leaf(*spec.net, g, buf, &node, (float)spec.hit_prior, greedy.get());
                    float top = -1;
                    for (const Action& f : buf) {
                        if (!untried(f)) continue;
                        float w = prior_of(node, key_of(f));
                        if (w > top) top = w, a = f;
                    }
                    chosen = top >= 0;
                }
                if (!chosen && !listed) {
                    // The bordered mat before the deployment: the untried eliminating shots and
                    // deployments from the bitboards; without one, any untried action drawn
                    // uniformly by rejection (the children are few beside the deployments).
                    fresh.clear();
                    for (const Action& s : buf) {
                        if (hits(g, s) && untried(s)) fresh.push_back(s);
                    }
                    const DeployPlan& plan = g.plan();
                    uint64_t hit[HAND_LIMIT];
                    if (eliminating_deployments(g, hit)) {
                        for (int c = 0; c < plan.n; ++c) {
                            for (uint64_t b = hit[c]; b; b &= b - 1) {
                                int bit = __builtin_ctzll(b);
                                Action d{A_DEPLOY, plan.card[c], 0, make_sq(bit / HEIGHT, bit % HEIGHT)};
                                if (untried(d)) fresh.push_back(d);
                            }
                        }
                    }
                    if (!fresh.empty()) {
                        a = fresh[rng.below((uint32_t)fresh.size())];
                        chosen = true;
                    } else {
                        for (int tries = 0; tries < 16 && !chosen; ++tries) {
                            uint32_t r = rng.below((uint32_t)n_legal);
                            a = r < buf.size() ? buf[r] : g.deploy_at((int)(r - buf.size()));
                            chosen = untried(a);
                        }
                    }
                    if (!chosen) g.legal(buf);
                }
                if (!chosen) {
                    fresh.clear();
                    for (const Action& f : buf) {
                        if (untried(f)) fresh.push_back(f);
                    }
                    size_t hit_n = 0;
                    for (size_t i = 0; i < fresh.size(); ++i) {
                        if (hits(g, fresh[i])) std::swap(fresh[hit_n++], fresh[i]);
                    }
                    a = fresh[rng.below((uint32_t)(hit_n ? hit_n : fresh.size()))];
                }
                Node n;
                n.action = a;
                n.player = player;
                n.avail = 1;
                int id = (int)nodes.size();
                nodes.push_back(std::move(n));
                auto& kids = nodes[at].kids;
                uint64_t key = key_of(a);
                kids.insert(std::lower_bound(kids.begin(), kids.end(), std::make_pair(key, -1)), {key, id});
                g.push(a, nullptr);
                at = id;
                path.push_back(id);
                expanded = true;
                break;
            }
            g.push(nodes[best].action, nullptr);
            at = best;
            path.push_back(best);
        }
        double r1;
        if (spec.net && !ordered && expanded && !g.over()) {
            // A new leaf: the network's value (its priors kept for the node's later visits),
            // blended with ``mix`` of the playout's evaluation.
            if (g.phase() == PRE) g.resolve_start();
            g.legal(buf);
            r1 = net_leaf(*spec.net, g, buf, &nodes[at], (float)spec.hit_prior, greedy.get());
            if (spec.mix > 0) {
                playout(g, rng, spec.policy, spec.playout_turns, buf);
                r1 = (1 - spec.mix) * r1 + spec.mix * evaluate(g, judge);
            }
        } else {
            if (!g.over()) playout(g, rng, spec.policy, spec.playout_turns, buf);
            r1 = evaluate(g, judge);
        }
        for (int id : path) {
            Node& n = nodes[id];
            ++n.visits;
            n.total += n.player == 1 ? r1 : 1.0 - r1;
        }
        ++nodes[0].visits;
    }

    for (const Action& a : root_legal) {
        RootStat s;
        s.action = a;
        int kid = find_kid(nodes[0], key_of(a));
        if (kid >= 0 && nodes[kid].visits > 0) {
            s.visits = nodes[kid].visits;
            s.mean = nodes[kid].total / nodes[kid].visits;
            if (nodes[kid].player != me) s.mean = 1.0 - s.mean;
        }
        out.root.push_back(s);
    }
    out.nodes = (int)nodes.size();
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
}

Action best_action(const Game& view, const SearchOut& out) {
    const RootStat* best = nullptr;
    std::string best_text;
    for (const RootStat& r : out.root) {
        if (best && (r.visits < best->visits || (r.visits == best->visits && r.mean < best->mean))) continue;
        if (best && r.visits == best->visits && r.mean == best->mean) {
            std::string text = view.action_to_string(r.action);
            if (text >= best_text) continue;
            best = &r, best_text = std::move(text);
            continue;
        }
        best = &r;
        best_text = view.action_to_string(r.action);
    }
    if (!best) throw std::invalid_argument("search: no root action");
    return best->action;
}

void note_shown(const Game& g, const Action& a, std::vector<int16_t>& known) {
    if (a.kind == A_DEPLOY) {
        if (g.forced()) known = g.hand(g.to_move());
        auto it = std::find(known.begin(), known.end(), a.card);
        if (it != known.end()) known.erase(it);
    } else if (a.kind == A_RECALL) {
        int u = g.unit_at(a.from);
        if (u >= 0) known.push_back(g.units()[(size_t)u].card);
    }
}

void search_view(const Game& g, int player, const std::vector<int16_t>& known,
                 const std::vector<int16_t>* const lists[3], Rng& rng, Game& view, std::vector<int16_t> pool[3]) {
    const CardTable& cards = g.cards();
    Record r = g.record();
    const int other = 3 - player;
    for (int p = 1; p <= 2; ++p) {
        auto& hand = r.hands[(size_t)p - 1];
        auto& deck = r.decks[(size_t)p - 1];
        std::fill(deck.begin(), deck.end(), (int16_t)-1);
        if (p == other && !g.variant().visible) {
            if (known.size() > hand.size()) throw std::logic_error("more hand cards known than held");
            std::fill(hand.begin(), hand.end(), (int16_t)-1);
            std::copy(known.begin(), known.end(), hand.begin());
        }
        // The list less p's cards in the open: units on the mat, the lost pile, known hand cards.
        std::vector<int> left(cards.ids.size(), 0);
        for (int16_t c : *lists[p]) ++left[(size_t)c];
        bool general_seen = false;
        auto see = [&](int c) {
            if (c < 0) return;
            if (left[(size_t)c] > 0) --left[(size_t)c];
            general_seen = general_seen || cards.kinds[1][(size_t)c].general;
        };
        for (const UnitRecord& u : r.units) {
            if (u.owner == p) see(u.card);
        }
        for (int16_t c : r.lost[(size_t)p - 1]) see(c);
        for (int16_t c : hand) see(c);
        std::vector<int16_t> generals, rest;
        for (const int16_t c : *lists[p]) {
            // Each card once per copy left, in the list's order.
            if (left[(size_t)c] <= 0) continue;
            --left[(size_t)c];
            (cards.kinds[1][(size_t)c].general ? generals : rest).push_back(c);
        }
        size_t holes = (size_t)std::count(hand.begin(), hand.end(), (int16_t)-1);
        size_t wanted = holes + deck.size();
        if (!generals.empty() && holes && !general_seen) {
            size_t pick = generals.size() == 1 ? 0 : rng.below((uint32_t)generals.size());
            *std::find(hand.begin(), hand.end(), (int16_t)-1) = generals[pick];
            generals.erase(generals.begin() + (long)pick);
            --wanted;
        }
        if (rest.size() < wanted) rest.insert(rest.end(), generals.begin(), generals.end());
        pool[p] = std::move(rest);
    }
    view = Game(g.card_table(), g.variant());
    view.load(r);
}

}  // namespace low
