// The policy/value network on the core: the scaled observation of a position and the forward
// pass of a version 3 network file (docs/netformat: lordsofwar/bots/policy.py, docs/core.md,
// "The network evaluator"), for the search's priors and leaf values (docs/bots.md, `marshal`).
//
// The network is a multilayer perceptron: a policy chain w0, b0, ..., wP, bP (ReLU after each
// layer but the last, which gives one logit per action id) and a value head vw0, vb0, ..., whose
// input is the activation of policy layer ``value_from`` and whose one output's tanh is the
// expected result for the player about to decide. Its input is what
// lordsofwar.rl.config.flat_observation makes of observe(): each number divided by its divisor
// (the reciprocals are handed over from there: one table of divisors) and capped at 1.
#pragma once

#include <memory>
#include <vector>

#include "batch.hpp"

namespace low {

struct Layer {
    int in = 0, out = 0;
    std::vector<float> w;  // (in, out) row-major, as the file stores it
    std::vector<float> b;  // (out)
};

class Net {
   public:
    // The layers as the file holds them and ``scale`` (1 / divisor per input,
    // lordsofwar.rl.config.observation_scale); throws std::invalid_argument when the layers do not
    // chain, when the first does not read a width x height frame's observation, when value_from
    // is not a hidden layer or when the value head does not end in one output.
    //
    // A version 4 file's action head (``action``: aw0, ab0 and aw1, ab1) adds to each legal id's
    // logit aw1 @ ReLU(aw0 @ [f; h] + ab0) + ab1, where f are the action's ``features`` numbers
    // (greedy_features) and h the activation of policy layer ``action_from``
    // (lordsofwar.bots.policy.Policy.action_logits); none: ``action`` empty.
    Net(std::vector<Layer> policy, std::vector<Layer> value, int value_from, int width, int height,
        std::vector<float> scale, std::vector<Layer> action = {}, int action_from = -1, int features = 0);

    int width() const { return width_; }
    int height() const { return height_; }
    int inputs() const { return policy_[0].in; }
    int num_actions() const { return policy_.back().out; }
    bool has_action_head() const { return !action_.empty(); }
    int features() const { return features_; }

    // The scaled observation of ``g`` from its decider's frame (after the start of the turn is
    // settled: call after a legal listing), ``inputs()`` floats.
    void observation(const Game& g, float* out) const;

    // The forward pass for ``g`` (its start of the turn settled): the value for the decider in
    // [-1, 1], and the logits of the ``n_ids`` action ids ``ids`` into ``logits``. The frame's
    // action ids must be the network's (frame_of(g, width(), height()).num_actions()). With an
    // action head, ``features`` holds features() numbers per id (else it is not read).
    float evaluate(const Game& g, const int* ids, int n_ids, float* logits, const float* features = nullptr) const;

    // What evaluate reads beside the position: the actions of ``legal`` (g's listing) that have
    // an id in the network's frame, with their ids; with an action head, in ascending id order
    // with their features (``greedy`` judges every legal action; it must be given then), as
    // lordsofwar.bots.features.raw_scores and features give them. Without one, in ``legal``'s
    // order, and ``features`` is left empty.
    void inputs(Game& g, const std::vector<Action>& legal, Greedy* greedy, std::vector<Action>& actions,
                std::vector<int>& ids, std::vector<float>& features) const;

   private:
    std::vector<Layer> policy_, value_, action_;
    int action_from_ = -1, features_ = 0;
    std::vector<float> last_t_;  // the last policy layer transposed: (out, in), one row per action id
    int value_from_, width_, height_;
    std::vector<float> scale_;   // per input: 1 / divisor
    std::vector<uint8_t> clip_;  // per input: capped at 1 (its divisor is not 1)
};

}  // namespace low
