"""The card gallery (/learn/cards): every card with its facts and, once enough rated games exist, how it fares in them."""
