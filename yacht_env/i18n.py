"""Category names and interface messages by language.

Languages: English (the reference) and the languages of the original rule documents in ``shared/seeds/``: Malay
(``ms``, 000 Yacht and 004 Yahtzee), Greek (``el``, 001), Estonian (``et``, 002) and Telugu (``te``, 003).

Category names come from those documents wherever they name the category; every such choice, and every name made
up where a document is silent, is noted beside it. Interface messages (short labels and the texts of the
``yacht replay`` / ``yacht play`` tools) are our own translations. A language may leave a key out;
:func:`text` then falls back to English. Messages with ``{placeholders}`` are filled by :func:`fmt`.

:func:`display_width` and :func:`pad` measure text as a terminal shows it (combining marks take no column, wide
characters two), so scorecards in Telugu line up.
"""

from __future__ import annotations

import unicodedata

LANGUAGES: dict[str, str] = {
    "en": "English",
    "ms": "Bahasa Melayu",
    "el": "Ελληνικά",
    "et": "Eesti",
    "te": "తెలుగు",
}

# Names of every category id. The six upper boxes and the categories Yacht shares with Yahtzee and Yatzy
# (full_house, four_of_a_kind) carry their Yacht name here; RULES_OVERRIDES replaces those that a rule set names
# differently. Knizia's Yacht has Yacht's ids and takes Yacht's names (no document in these languages names its
# boxes; OpenSpiel's English labels "Chance", "Small/Large Straight" are for the same boxes as Yacht's "Choice",
# "Little/Big Straight", and we keep one name per id).
# Yatzy has no document in any of these languages: its names are our choice, noted per language. Its boxes shared
# with Yahtzee (three/four of a kind, straights, full house, chance) take the Yahtzee names, its own boxes are
# One Pair, Two Pairs and Yatzy (the English names of the Scandinavian scorecard; "Yatzy" is kept in every
# language, as "Yacht" and "Yahtzee" are).
CATEGORY_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "Three of a Kind", "small_straight": "Small Straight",
        "large_straight": "Large Straight", "yahtzee": "Yahtzee", "chance": "Chance",
        "one_pair": "One Pair", "two_pairs": "Two Pairs", "yatzy": "Yatzy",
    },
    # Malay. Yacht (000): the document names the number boxes in Malay ("Satu, Dua, Tiga, Empat, Lima dan Enam")
    # and keeps the English names of the six combination boxes ("Full House", "Four of a Kind", "Little Straight",
    # "Big Straight", "Choice", "Yacht"); we use its terms as written. Yahtzee (004) names all its boxes in Malay:
    # "Aces (Satu)", "Dua" .. "Enam", "3 Jenis", "4 Jenis", "Full House" (its body text also says "Rumah Penuh",
    # accepted as an alias), "Lurus Kecil", "Lurus Besar", "Yahtzee!" (written here without the "!", accepted with
    # it), "Peluang". Yatzy (our choice): "Satu Pasang" and "Dua Pasang" ("pasang": a pair), the Yahtzee
    # document's terms for the shared boxes ("4 Jenis" through RULES_OVERRIDES).
    "ms": {
        "ones": "Satu", "twos": "Dua", "threes": "Tiga", "fours": "Empat", "fives": "Lima", "sixes": "Enam",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "3 Jenis", "small_straight": "Lurus Kecil", "large_straight": "Lurus Besar",
        "yahtzee": "Yahtzee", "chance": "Peluang",
        "one_pair": "Satu Pasang", "two_pairs": "Dua Pasang", "yatzy": "Yatzy",
    },
    # Greek. Yacht (001): "Άσσοι, Δυάρια, Τριάρια, Τεσσάρια, Πεντάρια, Εξάρια", "Full House" (kept in English by
    # the document), "Καρέ", "Μικρή κέντα", "Μεγάλη κέντα", "Επιλογή", "Yacht". There is no Greek Yahtzee document:
    # the boxes Yahtzee shares with Yacht keep the Yacht document's terms (its straights are "Μικρή/Μεγάλη κέντα"
    # too, the poker word for a straight); Three of a Kind is "Τριάδα" (the Greek poker term, beside "Καρέ" for
    # four), Chance is "Τύχη" (a literal translation: "Επιλογή" is Yacht's Choice), Yahtzee keeps its name.
    # Yatzy (our choice): "Ζευγάρι" and "Δύο ζευγάρια", the Greek poker terms for one pair and two pairs.
    "el": {
        "ones": "Άσσοι", "twos": "Δυάρια", "threes": "Τριάρια", "fours": "Τεσσάρια", "fives": "Πεντάρια",
        "sixes": "Εξάρια", "full_house": "Full House", "four_of_a_kind": "Καρέ", "little_straight": "Μικρή κέντα",
        "big_straight": "Μεγάλη κέντα", "choice": "Επιλογή", "yacht": "Yacht",
        "three_of_a_kind": "Τριάδα", "small_straight": "Μικρή κέντα", "large_straight": "Μεγάλη κέντα",
        "yahtzee": "Yahtzee", "chance": "Τύχη",
        "one_pair": "Ζευγάρι", "two_pairs": "Δύο ζευγάρια", "yatzy": "Yatzy",
    },
    # Estonian. Yacht (002): "Ühed, Kahed, Kolmed, Neljad, Viied, Kuued", "Full House" (kept in English by the
    # document), "Neli ühesugust", "Väike rida", "Suur rida", "Valik", "Yacht". No Estonian Yahtzee document:
    # shared boxes keep the Yacht terms, the straights are "Väike rida" / "Suur rida" as in Yacht, Three of a Kind
    # is "Kolm ühesugust" (formed like the document's "Neli ühesugust"), Chance is "Juhus" (the usual Estonian
    # word for the chance box; "Valik" is Yacht's Choice), Yahtzee keeps its name. Yatzy (our choice): "Paar" and
    # "Kaks paari" (a pair, two pairs).
    "et": {
        "ones": "Ühed", "twos": "Kahed", "threes": "Kolmed", "fours": "Neljad", "fives": "Viied", "sixes": "Kuued",
        "full_house": "Full House", "four_of_a_kind": "Neli ühesugust", "little_straight": "Väike rida",
        "big_straight": "Suur rida", "choice": "Valik", "yacht": "Yacht",
        "three_of_a_kind": "Kolm ühesugust", "small_straight": "Väike rida", "large_straight": "Suur rida",
        "yahtzee": "Yahtzee", "chance": "Juhus",
        "one_pair": "Paar", "two_pairs": "Kaks paari", "yatzy": "Yatzy",
    },
    # Telugu. Yacht (003): the number boxes are "ఒకటి, రెండు, మూడు, నాలుగు, ఐదు మరియు ఆరు"; the document keeps
    # every combination box in English ("Full House", "Four of a Kind", "Little Straight", "Big Straight",
    # "Choice", "Yacht"), and so do we. No Telugu Yahtzee document: following the Yacht document's practice the
    # Yahtzee-only and Yatzy-only boxes keep their English names too (for Yatzy, our choice).
    "te": {
        "ones": "ఒకటి", "twos": "రెండు", "threes": "మూడు", "fours": "నాలుగు", "fives": "ఐదు", "sixes": "ఆరు",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "Three of a Kind", "small_straight": "Small Straight", "large_straight": "Large Straight",
        "yahtzee": "Yahtzee", "chance": "Chance",
        "one_pair": "One Pair", "two_pairs": "Two Pairs", "yatzy": "Yatzy",
    },
}
# Yahtzee names that differ from the Yacht name of the same id.
YAHTZEE_OVERRIDES: dict[str, dict[str, str]] = {
    "en": {"ones": "Aces"},
    # 004 heads the box "Aces (Satu)" and the four-of-a-kind box "4 Jenis"
    "ms": {"ones": "Aces (Satu)", "four_of_a_kind": "4 Jenis"},
}
# Yatzy names that differ from the Yacht name of the same id (our choice: the Yahtzee document's "4 Jenis", beside
# its "3 Jenis"; the number boxes keep the Yacht document's "Satu".."Enam").
YATZY_OVERRIDES: dict[str, dict[str, str]] = {
    "ms": {"four_of_a_kind": "4 Jenis"},
}
# Per rule-set family: the names that replace the Yacht name of an id. A rule set takes the overrides of its name,
# or of the part of its name before the first "-" ("yahtzee-free-joker" takes those of "yahtzee").
RULES_OVERRIDES: dict[str, dict[str, dict[str, str]]] = {"yahtzee": YAHTZEE_OVERRIDES, "yatzy": YATZY_OVERRIDES}
# Further names a player may type for a category (matched by play's command parser, never displayed).
CATEGORY_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"ones": ("Aces",), "yahtzee": ("Yahtzee!",)},
    "ms": {"ones": ("Aces", "Satu"), "full_house": ("Rumah Penuh",), "yahtzee": ("Yahtzee!",),
           "three_of_a_kind": ("3 of a Kind",)},
}

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "dice": "Dice", "rolls_left": "Rolls left", "turn": "Turn", "total": "Total", "upper_total": "Upper total",
        "upper_bonus": "Upper bonus", "yahtzee_bonus": "Yahtzee bonus", "game_over": "Game over",
        "category": "Category", "score": "Score",
        # replay
        "roll": "Roll", "agent": "Agent", "seed": "Seed", "best": "best", "regret": "regret",
        "final_score": "Final score", "optimal_value": "Optimal play expects",
        "regret_total": "Expected points lost against optimal play",
        "act_keep": "keep {dice}", "act_reroll_all": "reroll all", "act_score": "score {category}",
        "scored": "{who}: {points} in {category}, total {total}",
        # play
        "you": "You", "players": "{n} players",
        "now": "Now", "your_turn": "Your turn", "turn_of": "Turn of {who}",
        "help": ("Commands:\n"
                 "  keep <faces>      keep these dice, reroll the others (k 5 5 6); 'keep' alone rerolls all\n"
                 "  score <category>  fill a category: its number, id or name (s 7, s full_house)\n"
                 "  hint              the optimal move and its expected final score\n"
                 "  show              show the dice and the scorecard again\n"
                 "  help              this list\n"
                 "  quit              leave the game (Ctrl-D too)"),
        "accepted": "Accepted: keep <faces>, score <category>, hint, show, help, quit.",
        "unknown_command": "Unknown command {cmd!r}.",
        "bad_face": "{token!r} is not a die face (1 to 6).",
        "bad_faces": "Cannot keep {faces}: the dice are {dice}.",
        "no_rolls": "No rolls left this turn: score a category (score <category>).",
        "keep_all": "Keeping all five dice wastes a roll: score a category instead (score <category>).",
        "need_category": "Which category? score <number, id or name>.",
        "unknown_category": "Unknown category {name!r}. Give a number 1-{n}, an id or a name. Open: {open}.",
        "ambiguous_category": "{name!r} could be: {options}.",
        "filled": "{category} is already filled. Open: {open}.",
        "joker": "The Joker rule forbids {category} now. Allowed: {allowed}.",
        "hint": "Hint: {action} (expected final score {value})",
        "winner": "Winner: {who} with {total}.",
        "tie": "Tie at {total}: {who}.",
        "bye": "Game left unfinished. Bye.",
    },
    "ms": {
        "dice": "Dadu", "rolls_left": "Baki balingan", "turn": "Giliran", "total": "Jumlah",
        "upper_total": "Jumlah Bahagian Atas", "upper_bonus": "Bonus Bahagian Atas", "yahtzee_bonus": "Bonus Yahtzee",
        "game_over": "Permainan tamat", "category": "Kategori", "score": "Skor",
        "roll": "Balingan", "agent": "Ejen", "seed": "Benih", "best": "terbaik", "regret": "kerugian",
        "final_score": "Skor akhir", "optimal_value": "Jangkaan permainan optimum",
        "regret_total": "Jangkaan mata yang hilang berbanding permainan optimum",
        "act_keep": "simpan {dice}", "act_reroll_all": "baling semula semua", "act_score": "skor {category}",
        "scored": "{who}: {points} dalam {category}, jumlah {total}",
        "you": "Anda", "players": "{n} pemain",
        "now": "Kini", "your_turn": "Giliran anda", "turn_of": "Giliran {who}",
        "help": ("Arahan:\n"
                 "  keep <muka>       simpan dadu ini, baling semula yang lain (k 5 5 6); 'keep' sahaja baling "
                 "semula semua\n"
                 "  score <kategori>  isi kategori: nombor, id atau nama (s 7, s full_house)\n"
                 "  hint              langkah optimum dan jangkaan skor akhirnya\n"
                 "  show              tunjuk semula dadu dan kad skor\n"
                 "  help              senarai ini\n"
                 "  quit              keluar dari permainan (juga Ctrl-D)"),
        "accepted": "Diterima: keep <muka>, score <kategori>, hint, show, help, quit.",
        "unknown_command": "Arahan tidak dikenali: {cmd!r}.",
        "bad_face": "{token!r} bukan muka dadu (1 hingga 6).",
        "bad_faces": "Tidak boleh simpan {faces}: dadu ialah {dice}.",
        "no_rolls": "Tiada balingan lagi dalam giliran ini: pilih kategori (score <kategori>).",
        "keep_all": "Menyimpan kelima-lima dadu membazirkan balingan: pilih kategori (score <kategori>).",
        "need_category": "Kategori mana? score <nombor, id atau nama>.",
        "unknown_category": "Kategori tidak dikenali: {name!r}. Beri nombor 1-{n}, id atau nama. Terbuka: {open}.",
        "ambiguous_category": "{name!r} mungkin: {options}.",
        "filled": "{category} sudah diisi. Terbuka: {open}.",
        "joker": "Peraturan Joker tidak membenarkan {category} sekarang. Dibenarkan: {allowed}.",
        "hint": "Petunjuk: {action} (jangkaan skor akhir {value})",
        "winner": "Pemenang: {who} dengan {total}.",
        "tie": "Seri pada {total}: {who}.",
        "bye": "Permainan tidak selesai. Selamat tinggal.",
    },
    "el": {
        "dice": "Ζάρια", "rolls_left": "Υπόλοιπες ρίψεις", "turn": "Γύρος", "total": "Σύνολο",
        "upper_total": "Σύνολο Άνω Τμήματος", "upper_bonus": "Μπόνους Άνω Τμήματος", "yahtzee_bonus": "Μπόνους Yahtzee",
        "game_over": "Τέλος παιχνιδιού", "category": "Κατηγορία", "score": "Πόντοι",
        "roll": "Ρίψη", "agent": "Πράκτορας", "seed": "Σπόρος", "best": "βέλτιστο", "regret": "απώλεια",
        "final_score": "Τελικό σκορ", "optimal_value": "Αναμενόμενο σκορ βέλτιστου παιχνιδιού",
        "regret_total": "Αναμενόμενοι πόντοι που χάθηκαν έναντι του βέλτιστου παιχνιδιού",
        "act_keep": "κράτα {dice}", "act_reroll_all": "ξαναρίξε όλα", "act_score": "γράψε {category}",
        "scored": "{who}: {points} στην κατηγορία {category}, σύνολο {total}",
        "you": "Εσύ", "players": "{n} παίκτες",
        "now": "Τώρα", "your_turn": "Η σειρά σου", "turn_of": "Σειρά: {who}",
        "help": ("Εντολές:\n"
                 "  keep <ζάρια>      κράτα αυτά τα ζάρια, ξαναρίξε τα άλλα (k 5 5 6)· σκέτο 'keep' τα ξαναρίχνει "
                 "όλα\n"
                 "  score <κατηγορία> συμπλήρωσε κατηγορία: αριθμός, id ή όνομα (s 7, s full_house)\n"
                 "  hint              η βέλτιστη κίνηση και το αναμενόμενο τελικό σκορ της\n"
                 "  show              δείξε ξανά τα ζάρια και τη βαθμολογία\n"
                 "  help              αυτή η λίστα\n"
                 "  quit              έξοδος από το παιχνίδι (και Ctrl-D)"),
        "accepted": "Αποδεκτές: keep <ζάρια>, score <κατηγορία>, hint, show, help, quit.",
        "unknown_command": "Άγνωστη εντολή: {cmd!r}.",
        "bad_face": "Το {token!r} δεν είναι τιμή ζαριού (1 έως 6).",
        "bad_faces": "Δεν μπορείς να κρατήσεις {faces}: τα ζάρια είναι {dice}.",
        "no_rolls": "Δεν απομένουν ρίψεις σε αυτόν τον γύρο: διάλεξε κατηγορία (score <κατηγορία>).",
        "keep_all": "Αν κρατήσεις και τα πέντε ζάρια, χάνεις τη ρίψη: διάλεξε κατηγορία (score <κατηγορία>).",
        "need_category": "Ποια κατηγορία; score <αριθμός, id ή όνομα>.",
        "unknown_category": ("Άγνωστη κατηγορία: {name!r}. Δώσε αριθμό 1-{n}, id ή όνομα. "
                             "Ελεύθερες: {open}."),
        "ambiguous_category": "Το {name!r} μπορεί να είναι: {options}.",
        "filled": "Η κατηγορία {category} έχει ήδη συμπληρωθεί. Ελεύθερες: {open}.",
        "joker": "Ο κανόνας Joker δεν επιτρέπει τώρα την κατηγορία {category}. Επιτρέπονται: {allowed}.",
        "hint": "Συμβουλή: {action} (αναμενόμενο τελικό σκορ {value})",
        "winner": "Νικητής: {who} με {total}.",
        "tie": "Ισοπαλία με {total}: {who}.",
        "bye": "Το παιχνίδι έμεινε ημιτελές. Αντίο.",
    },
    "et": {
        "dice": "Täringud", "rolls_left": "Veeretusi jäänud", "turn": "Käik", "total": "Kokku",
        "upper_total": "Ülemine osa kokku", "upper_bonus": "Ülemise osa boonus", "yahtzee_bonus": "Yahtzee boonus",
        "game_over": "Mängu lõpp", "category": "Kategooria", "score": "Punktid",
        "roll": "Veeretus", "agent": "Agent", "seed": "Seeme", "best": "parim", "regret": "kaotus",
        "final_score": "Lõpptulemus", "optimal_value": "Optimaalse mängu oodatav tulemus",
        "regret_total": "Oodatav punktikaotus võrreldes optimaalse mänguga",
        "act_keep": "hoia {dice}", "act_reroll_all": "veereta kõik uuesti", "act_score": "vali {category}",
        "scored": "{who}: {points} kategooriasse {category}, kokku {total}",
        "you": "Sina", "players": "{n} mängijat",
        "now": "Nüüd", "your_turn": "Sinu käik", "turn_of": "Käigul on {who}",
        "help": ("Käsud:\n"
                 "  keep <täringud>    hoia need täringud, veereta teisi (k 5 5 6); ainult 'keep' veeretab kõiki\n"
                 "  score <kategooria> täida kategooria: number, id või nimi (s 7, s full_house)\n"
                 "  hint               optimaalne käik ja selle oodatav lõpptulemus\n"
                 "  show               näita uuesti täringuid ja punktitabelit\n"
                 "  help               see loetelu\n"
                 "  quit               lahku mängust (ka Ctrl-D)"),
        "accepted": "Lubatud: keep <täringud>, score <kategooria>, hint, show, help, quit.",
        "unknown_command": "Tundmatu käsk: {cmd!r}.",
        "bad_face": "{token!r} ei ole täringu tahk (1 kuni 6).",
        "bad_faces": "Ei saa hoida {faces}: täringud on {dice}.",
        "no_rolls": "Selles käigus pole veeretusi jäänud: vali kategooria (score <kategooria>).",
        "keep_all": "Kõigi viie täringu hoidmine raiskab veeretuse: vali kategooria (score <kategooria>).",
        "need_category": "Milline kategooria? score <number, id või nimi>.",
        "unknown_category": "Tundmatu kategooria: {name!r}. Anna number 1-{n}, id või nimi. Vabad: {open}.",
        "ambiguous_category": "{name!r} võib olla: {options}.",
        "filled": "{category} on juba täidetud. Vabad: {open}.",
        "joker": "Jokeri reegel ei luba praegu kategooriat {category}. Lubatud: {allowed}.",
        "hint": "Vihje: {action} (oodatav lõpptulemus {value})",
        "winner": "Võitja: {who}, {total} punkti.",
        "tie": "Viik, {total} punkti: {who}.",
        "bye": "Mäng jäi pooleli. Head aega.",
    },
    "te": {
        "dice": "డైస్", "rolls_left": "మిగిలిన రోల్స్", "turn": "టర్న్", "total": "మొత్తం",
        "upper_total": "Upper Section మొత్తం", "upper_bonus": "Upper Section బోనస్", "yahtzee_bonus": "Yahtzee బోనస్",
        "game_over": "ఆట ముగిసింది", "category": "విభాగం", "score": "స్కోర్",
        "roll": "రోల్", "agent": "ఏజెంట్", "seed": "సీడ్", "best": "ఉత్తమం", "regret": "నష్టం",
        "final_score": "తుది స్కోర్", "optimal_value": "ఉత్తమ ఆటలో అంచనా స్కోర్",
        "regret_total": "ఉత్తమ ఆటతో పోలిస్తే కోల్పోయిన అంచనా పాయింట్లు",
        "act_keep": "{dice} ఉంచుకో", "act_reroll_all": "అన్నీ మళ్లీ వేయి", "act_score": "{category} ఎంచుకో",
        "scored": "{who}: {category}లో {points}, మొత్తం {total}",
        "you": "మీరు", "players": "{n} ఆటగాళ్లు",
        "now": "ఇప్పుడు", "your_turn": "మీ టర్న్", "turn_of": "{who} టర్న్",
        "help": ("ఆదేశాలు:\n"
                 "  keep <ముఖాలు>     ఈ డైస్ ఉంచుకుని మిగతావి మళ్లీ వేయండి (k 5 5 6); 'keep' మాత్రమే అన్నీ "
                 "మళ్లీ వేస్తుంది\n"
                 "  score <విభాగం>    ఒక విభాగాన్ని నింపండి: సంఖ్య, id లేదా పేరు (s 7, s full_house)\n"
                 "  hint              ఉత్తమ ఎత్తుగడ, దాని అంచనా తుది స్కోర్\n"
                 "  show              డైస్, స్కోర్ కార్డ్ మళ్లీ చూపించు\n"
                 "  help              ఈ జాబితా\n"
                 "  quit              ఆట నుంచి నిష్క్రమించు (Ctrl-D కూడా)"),
        "accepted": "అంగీకరించేవి: keep <ముఖాలు>, score <విభాగం>, hint, show, help, quit.",
        "unknown_command": "తెలియని ఆదేశం: {cmd!r}.",
        "bad_face": "{token!r} డైస్ ముఖం కాదు (1 నుంచి 6).",
        "bad_faces": "{faces} ఉంచుకోలేరు: డైస్ {dice}.",
        "no_rolls": "ఈ టర్న్‌లో రోల్స్ మిగల్లేదు: ఒక విభాగాన్ని ఎంచుకోండి (score <విభాగం>).",
        "keep_all": "ఐదు డైస్‌లనూ ఉంచుకుంటే రోల్ వృథా: ఒక విభాగాన్ని ఎంచుకోండి (score <విభాగం>).",
        "need_category": "ఏ విభాగం? score <సంఖ్య, id లేదా పేరు>.",
        "unknown_category": ("తెలియని విభాగం: {name!r}. 1-{n} సంఖ్య, id లేదా పేరు ఇవ్వండి. "
                             "ఖాళీ విభాగాలు: {open}."),
        "ambiguous_category": "{name!r} వీటిలో ఏదైనా కావచ్చు: {options}.",
        "filled": "{category} ఇప్పటికే నిండింది. ఖాళీ విభాగాలు: {open}.",
        "joker": "Joker నియమం ఇప్పుడు {category}ని అనుమతించదు. అనుమతించినవి: {allowed}.",
        "hint": "సూచన: {action} (అంచనా తుది స్కోర్ {value})",
        "winner": "విజేత: {who}, {total} పాయింట్లతో.",
        "tie": "{total} వద్ద టై: {who}.",
        "bye": "ఆట పూర్తి కాలేదు. వీడ్కోలు.",
    },
}


def check_lang(lang: str) -> str:
    """Return ``lang`` if it is a language of :data:`LANGUAGES`, else ``ValueError`` naming those accepted."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; accepted: {', '.join(LANGUAGES)}")
    return lang


def category_name(category: str, lang: str = "en", rules: str = "yacht") -> str:
    """Display name of a category id in ``lang`` under ``rules`` (Yahtzee and Yatzy name some boxes differently:
    :data:`RULES_OVERRIDES`)."""
    check_lang(lang)
    if category not in CATEGORY_NAMES["en"]:
        raise ValueError(f"unknown category {category!r}; accepted: {', '.join(CATEGORY_NAMES['en'])}")
    overrides = RULES_OVERRIDES.get(rules) or RULES_OVERRIDES.get(rules.split("-", 1)[0])
    if overrides:
        for lg in (lang, "en"):
            if category in overrides.get(lg, {}):
                return overrides[lg][category]
            if category in CATEGORY_NAMES.get(lg, {}):
                break  # the language names it and has no Yahtzee override: its Yacht name stands
    return CATEGORY_NAMES.get(lang, {}).get(category) or CATEGORY_NAMES["en"][category]


def category_aliases(category: str, lang: str = "en") -> tuple[str, ...]:
    """Extra names a player may type for ``category`` in ``lang`` (English aliases always count)."""
    out = list(CATEGORY_ALIASES["en"].get(category, ()))
    if lang != "en":
        out += CATEGORY_ALIASES.get(lang, {}).get(category, ())
    return tuple(out)


def text(key: str, lang: str = "en") -> str:
    """Interface message ``key`` in ``lang`` (English if that language lacks it)."""
    check_lang(lang)
    return MESSAGES.get(lang, {}).get(key) or MESSAGES["en"][key]


def fmt(key: str, lang: str = "en", **values: object) -> str:
    """Message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``values``."""
    return text(key, lang).format(**values)


def display_width(s: str) -> int:
    """Columns ``s`` takes in a terminal: combining marks and format characters 0, wide characters 2, others 1."""
    w = 0
    for ch in s:
        cat = unicodedata.category(ch)
        if cat in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def pad(s: str, width: int, align: str = "<") -> str:
    """``s`` padded with spaces to ``width`` display columns (``align`` ``<`` left, ``>`` right)."""
    fill = " " * max(0, width - display_width(s))
    return fill + s if align == ">" else s + fill
