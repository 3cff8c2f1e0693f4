"""Question sets for the answers benchmark (:mod:`benchmarks.answers`): issue 40's walk through Pride and Prejudice
(``pride-walk.jsonl``), the keys of novels-300's questions (``novels-300-keys.txt``), and what ``build`` makes of
them: novels-300 with its keys, and its single-hop questions under spoiler ceilings."""
