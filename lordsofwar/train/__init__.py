"""Training the network of the ``scout`` level (docs/bots.md, "The network"): games of the search
against itself (:mod:`lordsofwar.train.selfplay`), a policy and value network fitted to the
search's visits and the games' results (:mod:`lordsofwar.train.fit`, PyTorch), and its export to
the NumPy file the bots play (:func:`lordsofwar.bots.policy.save_network`); then the network
improved by playing against a bot (:mod:`lordsofwar.train.improve`, PPO, PyTorch) and the mean of
a run's snapshots (:mod:`lordsofwar.train.average`, NumPy).

Generating data needs the compiled core and NumPy only; fitting needs PyTorch
(``pip install 'lordsofwar[train]'``)."""
