// The Python binding of the core: lordsofwar.core._core. The public face is
// lordsofwar/core/_native.py; this module moves data in and out and keeps the loops in C++.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>

#include "batch.hpp"
#include "engine.hpp"
#include "play.hpp"
#include "search.hpp"

namespace nb = nanobind;
using namespace low;

namespace {

struct Cards {
    std::shared_ptr<const CardTable> table;
};

using U8 = nb::ndarray<uint8_t, nb::c_contig, nb::device::cpu>;
using I8 = nb::ndarray<int8_t, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<const int32_t, nb::c_contig, nb::device::cpu>;
using I32W = nb::ndarray<int32_t, nb::c_contig, nb::device::cpu>;
using F32 = nb::ndarray<float, nb::c_contig, nb::device::cpu>;

void check_buffers(const Batch& b, const U8& planes, const F32& info, const U8& mask, const I8& to_play) {
    size_t n = (size_t)b.size, squares = (size_t)b.width * b.height;
    if (planes.size() != n * PLANES * squares || info.size() != n * INFO || mask.size() != n * b.num_actions() ||
        to_play.size() != n)
        throw nb::value_error("buffers of the wrong size for this batch (see lordsofwar.core.Batch)");
}

using CardTuple = std::tuple<std::string, std::string, std::string, int, std::vector<std::pair<int, int>>, int,
                             std::vector<std::pair<int, int>>, std::vector<int>>;
using VariantTuple = std::tuple<bool, bool, bool, int, int, int>;

Variant variant_of(const VariantTuple& t) {
    Variant v;
    std::tie(v.intermediate, v.visible, v.bordered, v.units_to_win, v.commands_to_win, v.no_progress_turns) = t;
    return v;
}

std::string sq_name(Sq s) {
    int x = sq_x(s), y = sq_y(s);
    if (x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT) return std::string(1, (char)('a' + x)) + std::to_string(y + 1);
    return std::to_string(x) + "," + std::to_string(y);
}

std::string action_text(const Game& g, const Action& a) {
    switch (a.kind) {
        case A_DEPLOY:
            return "deploy " + g.cards->ids[a.card] + " " + sq_name(a.to);
        case A_SHOOT:
            return "shoot " + sq_name(a.from) + " " + sq_name(a.to);
        case A_ADVANCE:
            return "advance " + sq_name(a.from) + " " + sq_name(a.to);
        case A_MOVE:
            return "move " + sq_name(a.from) + " " + sq_name(a.to);
        case A_RECALL:
            return "recall " + sq_name(a.from);
        case A_DRAW:
            return "draw";
        default:
            return "pass";
    }
}

nb::object card_or_none(const Game& g, int c) { return c < 0 ? nb::none() : nb::cast(g.cards->ids[c]); }

nb::list events_to_python(const Game& g, const std::vector<Event>& events) {
    nb::list out;
    for (const Event& e : events) {
        nb::dict d;
        switch (e.type) {
            case E_REVEAL: {
                d["type"] = "reveal";
                d["player"] = (int)e.player;
                nb::list hand;
                for (int16_t c : e.hand) hand.append(card_or_none(g, c));
                d["hand"] = hand;
                break;
            }
            case E_DEPLOY:
                d["type"] = "deploy";
                d["card"] = g.cards->ids[e.card];
                d["square"] = sq_name(e.a);
                d["player"] = (int)e.player;
                d["forced"] = e.flag;
                break;
            case E_SHOT:
                d["type"] = "shot";
                d["from"] = sq_name(e.a);
                d["target"] = sq_name(e.b);
                d["damage"] = e.damage;
                d["declared"] = e.flag;
                d["card"] = g.cards->ids[e.card];
                d["target_card"] = g.cards->ids[e.card2];
                break;
            case E_ELIMINATED:
                d["type"] = "eliminated";
                d["square"] = sq_name(e.a);
                d["card"] = g.cards->ids[e.card];
                d["owner"] = (int)e.player;
                break;
            case E_ADVANCE:
            case E_MOVE:
                d["type"] = e.type == E_ADVANCE ? "advance" : "move";
                d["from"] = sq_name(e.a);
                d["to"] = sq_name(e.b);
                d["owner"] = (int)e.player;
                d["card"] = g.cards->ids[e.card];
                break;
            case E_RECALL:
                d["type"] = "recall";
                d["square"] = sq_name(e.a);
                d["card"] = g.cards->ids[e.card];
                d["player"] = (int)e.player;
                break;
            case E_DRAW:
            case E_PASS:
            case E_EXTRA:
                d["type"] = e.type == E_DRAW ? "draw" : (e.type == E_PASS ? "pass" : "extra_turn");
                d["player"] = (int)e.player;
                break;
            default:
                d["type"] = "result";
                d["winner"] = e.player ? nb::cast((int)e.player) : nb::none();
                d["reason"] = g.reason;
        }
        out.append(d);
    }
    return out;
}

struct State {
    Game g;
    std::vector<Action> buf;

    State(const Cards& cards, const VariantTuple& v) : g(cards.table, variant_of(v)) { buf.reserve(256); }

    Frame frame(int w, int h) const { return frame_of(g, w, h); }

    std::vector<Action>& legal() {
        g.legal(buf);
        return buf;
    }

    // Apply a legal action. In a view, the rules may need a hidden card midway (the end of a
    // turn asks whether the next player could deploy); then the game is put back as it was.
    void push(const Action& a, std::vector<Event>* ev) {
        auto& l = legal();
        if (std::find(l.begin(), l.end(), a) == l.end()) throw IllegalError("illegal");
        if (!g.hidden_cards()) {
            g.push(a, ev);
            return;
        }
        Game before = g;
        try {
            g.push(a, ev);
        } catch (const HiddenError&) {
            g = std::move(before);
            throw;
        }
    }

    nb::list run(const Action& a) {
        std::vector<Event> ev;
        push(a, &ev);
        return events_to_python(g, ev);
    }
};

// Raised to Python as these classes; lordsofwar/core/_native.py turns them into the rules'
// errors with the reference engine's explanation.
nb::object illegal_type, hidden_type;

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "The compiled rules core of Lords of War (see docs/core.md).";
    illegal_type = nb::borrow(PyErr_NewException("lordsofwar.core._core.Illegal", PyExc_ValueError, nullptr));
    hidden_type = nb::borrow(PyErr_NewException("lordsofwar.core._core.Hidden", PyExc_ValueError, nullptr));
    m.attr("Illegal") = illegal_type;
    m.attr("Hidden") = hidden_type;
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const IllegalError& e) {
            PyErr_SetString(illegal_type.ptr(), e.what());
        } catch (const HiddenError& e) {
            PyErr_SetString(hidden_type.ptr(), e.what());
        }
    });

    nb::class_<Cards>(m, "Cards")
        .def(
            "__init__",
            [](Cards* self, const std::vector<CardTuple>& specs) {
                std::vector<CardSpec> cs;
                for (const auto& t : specs) {
                    CardSpec c;
                    std::tie(c.id, c.rank, c.cls, c.defence, c.attacks, c.damage, c.targets, c.moves) = t;
                    cs.push_back(std::move(c));
                }
                new (self) Cards{std::make_shared<const CardTable>(cs)};
            },
            "One tuple per card: (id, rank, class, defence, [(direction, value)], damage, [(right, forward)], "
            "[direction]), directions 0-7 from F clockwise.")
        .def_prop_ro("shot_offsets", [](const Cards& c) { return c.table->shot_offsets; })
        .def("__len__", [](const Cards& c) { return c.table->ids.size(); });

    nb::class_<State>(m, "State")
        .def(nb::init<const Cards&, const VariantTuple&>())
        .def("clone", [](const State& s) { return State(s); })
        .def(
            "load",
            [](State& s, int turn, int to_move, int quiet, const std::vector<std::tuple<Sq, int, int>>& board,
               const std::vector<std::vector<int>>& hands, const std::vector<std::vector<int>>& decks,
               const std::vector<std::vector<int>>& lost, std::optional<std::pair<int, std::string>> result) {
                Game& g = s.g;
                g.turn = turn, g.to_move = to_move, g.quiet_turns = quiet;
                for (auto [sq, card, owner] : board) g.place(sq, card, owner);
                for (int p = 1; p <= 2; ++p) {
                    g.hands[p].assign(hands[p - 1].begin(), hands[p - 1].end());
                    g.decks[p].assign(decks[p - 1].begin(), decks[p - 1].end());
                    g.lost[p].assign(lost[p - 1].begin(), lost[p - 1].end());
                }
                g.start_turn();
                if (result) {
                    g.over = true, g.winner = result->first, g.reason = result->second, g.phase = OVER;
                }
            },
            nb::arg("turn"), nb::arg("to_move"), nb::arg("quiet"), nb::arg("board"), nb::arg("hands"),
            nb::arg("decks"), nb::arg("lost"), nb::arg("result").none(),
            "Set up a start-of-turn position: units in the order they were placed.")
        .def(
            "load_turn",
            [](State& s, int phase, const std::vector<std::tuple<Sq, int, int, Sq, bool>>& units, int generals_lost,
               bool eliminated, bool forced, bool in_turn,
               std::optional<std::tuple<std::vector<int>, std::vector<std::pair<Sq, std::vector<Sq>>>, std::vector<Sq>,
                                        bool>>
                   advance) {
                Game& g = s.g;
                for (Unit& u : g.units_mut()) u.flags = 0;
                for (auto [sq, flags, damage, target, has_target] : units) {
                    Unit& u = g.unit(g.unit_at(sq));
                    u.flags = (uint8_t)flags, u.shot_damage = damage, u.shot_target = target, u.has_target = has_target;
                }
                g.phase = (Phase)phase;
                g.generals_lost = generals_lost, g.eliminated = eliminated, g.forced = forced, g.in_turn = in_turn;
                if (advance) {
                    g.has_advance = true;
                    std::tie(g.adv.owners, g.adv.candidates, g.adv.taken, g.adv.advanced) = *advance;
                }
            },
            nb::arg("phase"), nb::arg("units"), nb::arg("generals_lost"), nb::arg("eliminated"), nb::arg("forced"),
            nb::arg("in_turn"), nb::arg("advance").none(),
            "Set the turn under way: (square, flags, shot damage or -1, shot target, has target) per unit.")
        .def("export",
             [](const State& s) {
                 const Game& g = s.g;
                 std::vector<const Unit*> order;
                 for (const Unit& u : g.units()) order.push_back(&u);
                 std::sort(order.begin(), order.end(), [](const Unit* a, const Unit* b) { return a->seq < b->seq; });
                 nb::list units;
                 for (const Unit* u : order) {
                     units.append(nb::make_tuple(u->sq, (int)u->card, (int)u->owner, (int)u->flags, u->shot_damage,
                                                 u->shot_target, u->has_target));
                 }
                 auto cards = [](const std::vector<int16_t>& v) { return std::vector<int>(v.begin(), v.end()); };
                 nb::object adv = nb::none();
                 if (g.has_advance) adv = nb::make_tuple(g.adv.owners, g.adv.candidates, g.adv.taken, g.adv.advanced);
                 return nb::make_tuple(
                     nb::make_tuple(g.turn, g.to_move, g.quiet_turns, (int)g.phase, g.generals_lost, g.eliminated,
                                    g.forced, g.in_turn),
                     units, nb::make_tuple(cards(g.hands[1]), cards(g.hands[2])),
                     nb::make_tuple(cards(g.decks[1]), cards(g.decks[2])),
                     nb::make_tuple(cards(g.lost[1]), cards(g.lost[2])),
                     g.over ? nb::make_tuple(g.winner, g.reason) : nb::none(), adv);
             })
        .def_prop_ro("over", [](const State& s) { return s.g.over; })
        .def_prop_ro("winner", [](const State& s) { return s.g.winner; })
        .def_prop_ro("reason", [](const State& s) { return s.g.reason; })
        .def_prop_ro("turn", [](const State& s) { return s.g.turn; })
        .def_prop_ro("to_move", [](const State& s) { return s.g.to_move; })
        .def_prop_ro("decider", [](const State& s) { return s.g.decider(); })
        .def_prop_ro("phase", [](const State& s) { return (int)s.g.phase; })
        .def("legal",
             [](State& s) {
                 nb::list out;
                 for (const Action& a : s.legal()) out.append(action_text(s.g, a));
                 return out;
             })
        .def("apply",
             [](State& s, int kind, int card, Sq from, Sq to) {
                 return s.run(Action{(uint8_t)kind, (int16_t)card, from, to});
             })
        .def("num_actions", [](const State& s, int w, int h) { return s.frame(w, h).num_actions(); })
        .def("legal_ids",
             [](State& s, int w, int h) {
                 Frame f = s.frame(w, h);
                 std::vector<int> ids;
                 for (const Action& a : s.legal()) {
                     int id = encode(s.g, f, a);
                     if (id < 0) throw nb::index_error(("outside the frame: " + action_text(s.g, a)).c_str());
                     ids.push_back(id);
                 }
                 std::sort(ids.begin(), ids.end());
                 return ids;
             })
        .def(
            "decode",
            [](const State& s, int id, int w, int h) -> nb::object {
                Action a;
                if (!decode(s.g, s.frame(w, h), id, a)) return nb::none();
                return nb::make_tuple((int)a.kind, (int)a.card, a.from, a.to, action_text(s.g, a));
            },
            "The action an id names here, as (kind, card, from, to, text), or None when it names none.")
        .def("encode",
             [](const State& s, int kind, int card, Sq from, Sq to, int w, int h) {
                 return encode(s.g, s.frame(w, h), Action{(uint8_t)kind, (int16_t)card, from, to});
             })
        .def("apply_id",
             [](State& s, int id, int w, int h) {
                 Action a;
                 if (!decode(s.g, s.frame(w, h), id, a)) throw IllegalError("no action has this id here");
                 s.push(a, nullptr);
             })
        .def("resolve", [](State& s) { s.g.resolve_start(); },
             "Settle the start of the turn as the first legal listing does (3.4).")
        .def_prop_ro("hidden",
                     [](const State& s) {
                         auto count = [](const std::vector<int16_t>& v) { return (int)std::count(v.begin(), v.end(), -1); };
                         const Game& g = s.g;
                         return nb::make_tuple(count(g.hands[1]), count(g.decks[1]), count(g.hands[2]), count(g.decks[2]));
                     },
                     "The unknown cards: (player 1's hand, deck, player 2's hand, deck).")
        .def("observe",
             [](const State& s, U8 planes, F32 info, int w, int h) {
                 Frame f = s.frame(w, h);
                 if (planes.size() != (size_t)PLANES * f.n() || info.size() != (size_t)INFO)
                     throw nb::value_error("buffers of the wrong size for this frame");
                 observe(s.g, f, planes.data(), info.data());
             })
        .def("observe_into",
             [](State& s, F32 out, I8 mask, int w, int h) {
                 // One call per decision for the RL environments: the legal ids (listing them
                 // settles the start of the turn), then the planes as floats and the info.
                 Frame f = s.frame(w, h);
                 const size_t n = (size_t)PLANES * f.n();
                 if (out.size() != n + (size_t)INFO || mask.size() != (size_t)f.num_actions())
                     throw nb::value_error("buffers of the wrong size for this frame");
                 int missing = 0;
                 int count = write_mask(s.g, f, reinterpret_cast<uint8_t*>(mask.data()), s.buf, missing);
                 thread_local std::vector<uint8_t> planes;
                 planes.resize(n);
                 observe(s.g, f, planes.data(), out.data() + n);
                 float* o = out.data();
                 for (size_t i = 0; i < n; ++i) o[i] = planes[i];
                 return count;
             })
        .def("mask",
             [](State& s, U8 mask, int w, int h) {
                 Frame f = s.frame(w, h);
                 if (mask.size() != (size_t)f.num_actions()) throw nb::value_error("a mask of the wrong size");
                 int missing = 0;
                 write_mask(s.g, f, mask.data(), s.buf, missing);
                 return missing;
             })
        .def("frame",
             [](const State& s, int w, int h) {
                 Frame f = s.frame(w, h);
                 return nb::make_tuple(f.ox, f.oy, f.w, f.h, f.player);
             })
        .def(
            "playout",
            [](State& s, uint64_t seed, int policy, int max_turns) {
                Rng rng(seed);
                return playout(s.g, rng, policy, max_turns, s.buf);
            },
            nb::arg("seed"), nb::arg("policy") = 0, nb::arg("max_turns") = -1)
        .def(
            "search",
            [](const State& s, int iterations, double seconds, uint64_t seed, double explore, int playout_turns,
               int policy, double scale, int widen, bool relative, std::vector<float> value, std::vector<int16_t> pool1,
               std::vector<int16_t> pool2) {
                SearchSpec spec;
                spec.iterations = iterations, spec.seconds = seconds, spec.seed = seed, spec.explore = explore;
                spec.playout_turns = playout_turns, spec.policy = policy, spec.scale = scale, spec.widen = widen;
                spec.relative = relative;
                spec.value = std::move(value);
                spec.pool[1] = std::move(pool1), spec.pool[2] = std::move(pool2);
                int n = (int)s.g.cards->ids.size();
                for (int p = 1; p <= 2; ++p) {
                    for (int16_t c : spec.pool[p]) {
                        if (c < 0 || c >= n) throw nb::value_error("search: a pool names a card not in the card set");
                    }
                }
                SearchOut found;
                {
                    nb::gil_scoped_release release;
                    try {
                        found = search(s.g, spec);
                    } catch (const std::invalid_argument& e) {
                        nb::gil_scoped_acquire again;
                        throw nb::value_error(e.what());
                    }
                }
                nb::list root;
                for (const RootStat& r : found.root) {
                    const Action& a = r.action;
                    root.append(nb::make_tuple(action_text(s.g, a), r.visits, r.mean));
                }
                return nb::make_tuple(root, found.iterations, found.nodes, found.seconds);
            },
            nb::arg("iterations"), nb::arg("seconds"), nb::arg("seed"), nb::arg("explore"), nb::arg("playout_turns"),
            nb::arg("policy"), nb::arg("scale"), nb::arg("widen"), nb::arg("relative"), nb::arg("value"), nb::arg("pool1"),
            nb::arg("pool2"),
            "Information-set MCTS from this view for its decider (src/core/search.hpp): per legal action "
            "(text, visits, mean result for the decider), then iterations, nodes, seconds.")
        .def("evaluate",
             [](const State& s, std::vector<float> value, double scale) {
                 SearchSpec spec;
                 spec.value = std::move(value), spec.scale = scale;
                 return evaluate(s.g, spec);
             },
             "The search's judgement of this position: player 1's win probability.");

    m.attr("PLANES") = PLANES;
    m.attr("INFO") = INFO;
    m.attr("HAND_FEATURES") = HAND_FEATURES;

    nb::class_<Batch>(m, "Batch")
        .def(
            "__init__",
            [](Batch* self, const Cards& cards, std::vector<std::vector<int16_t>> decks, const VariantTuple& v,
               int size, uint64_t seed, int width, int height) {
                if (size < 1) throw nb::value_error("size: at least one game");
                new (self) Batch(cards.table, variant_of(v), std::move(decks), size, seed, width, height);
            },
            nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("size"), nb::arg("seed"),
            nb::arg("width"), nb::arg("height"))
        .def_ro("size", &Batch::size)
        .def_ro("width", &Batch::width)
        .def_ro("height", &Batch::height)
        .def_ro("steps", &Batch::steps)
        .def_ro("episodes", &Batch::episodes)
        .def_ro("outside_frame", &Batch::outside_frame)
        .def_prop_ro("num_actions", &Batch::num_actions)
        .def("reset",
             [](Batch& b, U8 planes, F32 info, U8 mask, I8 to_play) {
                 check_buffers(b, planes, info, mask, to_play);
                 nb::gil_scoped_release release;
                 b.reset(planes.data(), info.data(), mask.data(), to_play.data());
             })
        .def("step",
             [](Batch& b, I32 actions, U8 planes, F32 info, U8 mask, I8 to_play, F32 rewards, U8 done,
                U8 truncated) {
                 check_buffers(b, planes, info, mask, to_play);
                 size_t n = (size_t)b.size;
                 if (actions.size() != n || rewards.size() != 2 * n || done.size() != n || truncated.size() != n)
                     throw nb::value_error("actions, done and truncated hold one entry per game, rewards two");
                 int bad;
                 {
                     nb::gil_scoped_release release;
                     bad = b.step(actions.data(), planes.data(), info.data(), mask.data(), to_play.data(),
                                  rewards.data(), done.data(), truncated.data());
                 }
                 return bad;
             })
        .def("sample",
             [](Batch& b, U8 mask, I32W actions) {
                 if (mask.size() != (size_t)b.size * b.num_actions() || actions.size() != (size_t)b.size)
                     throw nb::value_error("buffers of the wrong size for this batch");
                 nb::gil_scoped_release release;
                 b.sample(mask.data(), actions.data());
             })
        .def(
            "game", [](const Batch& b, int i) {
                if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                State s(Cards{b.cards}, VariantTuple{});
                s.g = b.games[i];
                return s;
            },
            "A copy of game ``i`` as a State.");

    m.def(
        "time_actions",
        [](const Cards& cards, const std::vector<std::vector<int16_t>>& decks, const VariantTuple& v, int samples,
           uint64_t seed) {
            // Decision points met in random games; then one legal listing and one application
            // timed on a fresh copy of each (what the copy cached at that point, it keeps).
            Variant var = variant_of(v);
            Rng rng(seed);
            std::vector<Game> points;
            std::vector<Action> chosen, buf;
            points.reserve(samples);
            while ((int)points.size() < samples) {
                Game g(cards.table, var);
                deal(g, decks[rng.below((uint32_t)decks.size())], decks[rng.below((uint32_t)decks.size())], rng);
                while (!g.over && (int)points.size() < samples) {
                    points.push_back(g);
                    g.legal(buf);
                    Action a = buf[rng.below((uint32_t)buf.size())];
                    chosen.push_back(a);
                    g.push(a, nullptr);
                }
            }
            std::vector<long> listing, applying;
            long listed = 0;
            {
                nb::gil_scoped_release release;
                using clock = std::chrono::steady_clock;
                for (size_t i = 0; i < points.size(); ++i) {
                    Game g = points[i];
                    auto t0 = clock::now();
                    g.legal(buf);
                    auto t1 = clock::now();
                    g.push(chosen[i], nullptr);
                    auto t2 = clock::now();
                    listed += (long)buf.size();
                    listing.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
                    applying.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count());
                }
            }
            return nb::make_tuple(listing, applying, listed, sizeof(Game));
        },
        nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("samples"), nb::arg("seed"),
        "Time legal listings and applications at decision points of random games: (listing ns, apply ns, "
        "actions listed, bytes of a Game object).");

    m.def(
        "random_games",
        [](const Cards& cards, const std::vector<std::vector<int16_t>>& decks, const VariantTuple& v, int games,
           double seconds, uint64_t seed) {
            Variant var = variant_of(v);
            Rng rng(seed);
            std::vector<Action> buf;
            buf.reserve(256);
            long actions = 0, turns = 0;
            int played = 0;
            auto start = std::chrono::steady_clock::now();
            double elapsed = 0;
            {
                nb::gil_scoped_release release;
                while (played < games || elapsed < seconds) {
                    Game g(cards.table, var);
                    const auto& d1 = decks[rng.below((uint32_t)decks.size())];
                    const auto& d2 = decks[rng.below((uint32_t)decks.size())];
                    deal(g, d1, d2, rng);
                    actions += playout(g, rng, UNIFORM, -1, buf);
                    turns += g.turn;
                    ++played;
                    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                }
            }
            return nb::make_tuple(played, actions, turns, elapsed);
        },
        nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("games"), nb::arg("seconds"), nb::arg("seed"),
        "Play uniformly random games from random deals of the given decks: (games, actions, turns, seconds).");

}
