"""The rules guide's page (/learn/rules); its content is lordsofwar.learn.guide."""
