"""Training the network of the ``scout`` level (docs/bots.md, "The network"): games of the search
against itself (:mod:`lordsofwar.train.selfplay`), a policy and value network fitted to the
search's visits and the games' results (:mod:`lordsofwar.train.fit`, PyTorch), and its export to
the NumPy file the bots play (:func:`lordsofwar.bots.policy.save_network`).

Generating data needs the compiled core and NumPy only; fitting needs PyTorch
(``pip install 'lordsofwar[train]'``)."""
