"""Generated sample novels in French, German, Spanish and Chinese, with questions whose answers they hold.

Each book has a title, an author line, three chapters under the language's own headings, and paragraphs of
filler sentences drawn (seeded) from a pool, with one fact sentence per question placed in a known chapter.
Each question asks with other inflections than its fact uses ("trouvé" for "trouva") and with plenty of
stopwords, so word overlap finds the fact only with the language's stopwords, stems or segmentation.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    language: str
    title: str
    author: str
    heading: str
    filler: list[str]
    facts: list[tuple[str, str, str]]
    """(fact sentence, question, the words a reader would search for)"""
    counted: tuple[str, str, int]
    """(counting question, counted word, how often the book uses it; every fact and filler use is counted)"""


SAMPLES = {
    "fr": Sample(
        "fr", "Le Secret du Moulin", "Personne", "Chapitre {n}",
        ["Le vent soufflait doucement sur les collines.", "Les oiseaux chantaient dans les arbres du jardin.",
         "Il faisait froid ce matin-là, et la brume couvrait la vallée.", "M. Lefèvre passa sans rien dire.",
         "Les cloches de l'église sonnaient au loin.", "On entendait la rivière couler sous le pont de pierre.",
         "La vieille horloge de la cuisine marquait midi.", "Personne ne savait ce que cachait la forêt."],
        [("Joseph, le meunier, cachait une clé rouillée dans un coffre de chêne.",
          "Où est-ce que le meunier a caché la clé ?", "meunier clé"),
         ("Un jour, les enfants trouvèrent une lettre de leur grand-mère sous une pierre plate.",
          "Qu'est-ce que les enfants ont trouvé sous la pierre ?", "enfants pierre"),
         ("Paul creusa toute la nuit près du grand chêne et découvrit une boîte pleine de pièces d'or.",
          "Qu'a-t-il découvert en creusant près du chêne ?", "creuser chêne")],
        ("Combien de fois parle-t-on de la rivière ?", "rivière", 0)),
    "de": Sample(
        "de", "Das Geheimnis der Mühle", "Niemand", "Kapitel {n}",
        ["Der Wind wehte sanft über die Hügel.", "Die Vögel sangen in den Bäumen des Gartens.",
         "Am 3. Mai war es noch kalt, und Nebel lag über dem Tal.", "Herr Weber ging schweigend vorbei.",
         "Die Glocken der Kirche läuteten in der Ferne.", "Man hörte den Fluss unter der Steinbrücke rauschen.",
         "Die alte Uhr in der Küche schlug zwölf.", "Niemand wusste, was der Wald verbarg."],
        [("Der Müller Josef versteckte einen rostigen Schlüssel in einer Truhe aus Eichenholz.",
          "Wo hat der Müller den Schlüssel versteckt?", "Müller Schlüssel"),
         ("Eines Tages fanden die Kinder unter einem flachen Stein einen Brief ihrer Großmutter.",
          "Was haben die Kinder unter dem Stein gefunden?", "Kinder Stein"),
         ("Paul grub die ganze Nacht neben der großen Eiche und entdeckte eine Kiste voller Goldmünzen.",
          "Was entdeckte er beim Graben neben der Eiche?", "graben Eiche")],
        ("Wie oft wird der Fluss erwähnt?", "Fluss", 0)),
    "es": Sample(
        "es", "El secreto del molino", "Nadie", "Capítulo {n}",
        ["El viento soplaba suavemente sobre las colinas.", "Los pájaros cantaban en los árboles del jardín.",
         "Hacía frío aquella mañana y la niebla cubría el valle.", "El Sr. García pasó sin decir nada.",
         "Las campanas de la iglesia sonaban a lo lejos.", "Se oía el río correr bajo el puente de piedra.",
         "El viejo reloj de la cocina marcaba el mediodía.", "Nadie sabía lo que escondía el bosque."],
        [("José, el molinero, escondía una llave oxidada en un baúl de roble.",
          "¿Dónde esconde el molinero la llave?", "molinero llave"),
         ("Un día los niños encontraron una carta de su abuela debajo de una piedra plana.",
          "¿Qué encontraron los niños debajo de la piedra?", "niños piedra"),
         ("Pablo cavó toda la noche junto al gran roble y descubrió una caja llena de monedas de oro.",
          "¿Qué descubrió al cavar junto al roble?", "cavar roble")],
        ("¿Cuántas veces se menciona el río?", "río", 0)),
    "zh": Sample(
        "zh", "磨坊的秘密", "无名氏", "第{n}章",
        ["风轻轻地吹过山丘。", "鸟儿在花园的树上歌唱。", "那天早上很冷，雾笼罩着山谷。", "王先生一言不发地走了过去。",
         "教堂的钟声在远处响起。", "人们听见河水在石桥下流淌。", "厨房里的旧钟敲了十二下。",
         "没有人知道森林里藏着什么。"],
        [("磨坊主约瑟夫把一把生锈的钥匙藏在橡木箱子里。", "磨坊主把钥匙藏在哪里？", "磨坊主 钥匙"),
         ("有一天，孩子们在一块扁平的石头下面找到了祖母写的信。", "孩子们在石头下面找到了什么？", "孩子们 石头"),
         ("保罗在大橡树旁挖了一整夜，发现了一个装满金币的盒子。", "保罗在橡树旁挖到了什么？", "橡树 金币")],
        ("河水被提到多少次？", "河水", 0)),
}


def sample_text(language: str, paragraphs: int = 12, seed: int = 0) -> tuple[str, Sample]:
    """The sample novel in ``language`` and its description (``counted`` filled in with the real count)."""
    sample = SAMPLES[language]
    rng = random.Random(seed)
    joiner = "" if language == "zh" else " "
    parts = [sample.title, ("作者：" if language == "zh" else "par " if language == "fr" else "von "
                            if language == "de" else "por ") + sample.author]
    for n in range(1, 4):
        parts.append(sample.heading.format(n=n))
        body = [joiner.join(rng.sample(sample.filler, 4)) for _ in range(paragraphs)]
        fact = sample.facts[n - 1][0]
        body.insert(paragraphs // 2, joiner.join([rng.choice(sample.filler), fact, rng.choice(sample.filler)]))
        parts += body
    text = "\n\n".join(parts) + "\n"
    question, word, _ = sample.counted
    uses = text.count(word) if language == "zh" else len(re.findall(rf"(?<!\w){word}(?!\w)", text, re.I))
    return text, Sample(**{**sample.__dict__, "counted": (question, word, uses)})
