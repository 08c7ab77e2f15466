"""The texts of the tools (``yacht replay``, ``yacht play``) in every language of :mod:`yacht_env.i18n`.

A :class:`~yacht_env.i18n.Catalogue` that extends the environments' (:data:`yacht_env.i18n.ENV_TEXT`): the tools
ask :func:`text` and :func:`fmt` here for their own messages and the scorecard's words alike. Our own translations;
a language may leave a key out (English is then shown).
"""

from __future__ import annotations

from yacht_env.i18n import ENV_TEXT, Catalogue

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "replay_legend": "Each line: roll, dice -> move; a score shows = the points it adds and the total so far.",
        "replay_legend_best": ("[{best} (V)]: the move was optimal, V is the expected final score of optimal play from "
                               "there\n[{best}: M (V); {regret} R]: M was optimal with expected final score V, and "
                               "the move played lost R expected points."),
        "multi_legend_best": ("[{best}: M; {regret} R]: M was the optimal move, and the move played lost R expected "
                              "points."),
        "replay_legend_coach": ("{{...}}: the objective's probability after the move played; best: the move that "
                                "maximises it, and its probability."),
        "keep_none": "Keeping none: rerolling all five dice.",
        "confirm_zero": "{category} scores 0 now; {better} would score {points}. Score 0 in {category}? [y/N] ",
        "not_scored": "Not scored: choose again.",
        "coach": "Coach, {what}: {choices}", "coach_choice": "{action}: {probability} (expected {value})",
        "reach_what": "P(final >= {target})", "win_what": "P(win), estimated", "duel_what": "P(win), exact",
        "coach_replay": "{what} {probability}; best {action} {best}",
        "roll": "Roll", "agent": "Agent", "seed": "Seed", "best": "best", "regret": "regret",
        "final_score": "Final score", "optimal_value": "Optimal play expects",
        "regret_total": "Expected points lost against optimal play",
        "scored": "{who}: {points} in {category}, total {total}", "you": "You", "your_turn": "Your turn",
        "turn_of": "Turn of {who}",
        "help": ("Commands:\n"
                 "  keep <faces>      keep these dice, reroll the others (k 5 5 6); 'keep' alone rerolls all\n"
                 "  score <category>  fill a category: its number, id or name (s 7, s full_house)\n"
                 "  hint              the optimal move and its expected final score\n"
                 "  show              show the dice and the scorecard again\n"
                 "  help              this list\n"
                 "  quit              leave the game (Ctrl-D too)"),
        "accepted": "Accepted: keep <faces>, score <category>, hint, show, help, quit.",
        "unknown_command": "Unknown command {cmd!r}.", "bad_face": "{token!r} is not a die face (1 to 6).",
        "bad_faces": "Cannot keep {faces}: the dice are {dice}.",
        "no_rolls": "No rolls left this turn: score a category (score <category>).",
        "keep_all": "Keeping all five dice wastes a roll: score a category instead (score <category>).",
        "need_category": "Which category? score <number, id or name>.",
        "unknown_category": "Unknown category {name!r}. Give a number 1-{n}, an id or a name. Open: {open}.",
        "ambiguous_category": "{name!r} could be: {options}.", "filled": "{category} is already filled. Open: {open}.",
        "joker": "The Joker rule forbids {category} now. Allowed: {allowed}.",
        "hint": "Hint: {action} (expected final score {value})", "bye": "Game left unfinished. Bye.",
    },
    "ms": {
        "replay_legend": ("Setiap baris: balingan, dadu -> langkah; pemarkahan menunjukkan = mata yang ditambah dan "
                          "jumlah setakat ini."),
        "replay_legend_best": ("[{best} (V)]: langkah itu optimum, V ialah jangkaan skor akhir permainan optimum dari "
                               "situ\n[{best}: M (V); {regret} R]: M optimum dengan jangkaan skor akhir V, dan langkah "
                               "yang dimainkan kehilangan jangkaan R mata."),
        "multi_legend_best": ("[{best}: M; {regret} R]: M ialah langkah optimum, dan langkah yang dimainkan kehilangan "
                              "jangkaan R mata."),
        "replay_legend_coach": ("{{...}}: kebarangkalian objektif selepas langkah yang dimainkan; terbaik: langkah "
                                "yang memaksimumkannya, dan kebarangkaliannya."),
        "keep_none": "Tiada yang disimpan: membaling semula kelima-lima dadu.",
        "confirm_zero": ("{category} memberi 0 sekarang; {better} akan memberi {points}. Isi 0 dalam {category}? "
                         "[y/N] "),
        "not_scored": "Tidak diisi: pilih semula.",
        "coach": "Jurulatih, {what}: {choices}", "coach_choice": "{action}: {probability} (jangkaan {value})",
        "reach_what": "P(skor akhir >= {target})", "win_what": "P(menang), anggaran", "duel_what": "P(menang), tepat",
        "coach_replay": "{what} {probability}; terbaik {action} {best}",
        "roll": "Balingan", "agent": "Ejen", "seed": "Benih", "best": "terbaik", "regret": "kerugian",
        "final_score": "Skor akhir", "optimal_value": "Jangkaan permainan optimum",
        "regret_total": "Jangkaan mata yang hilang berbanding permainan optimum",
        "scored": "{who}: {points} dalam {category}, jumlah {total}", "you": "Anda", "your_turn": "Giliran anda",
        "turn_of": "Giliran {who}",
        "help": ("Arahan:\n"
                 "  keep <muka>       simpan dadu ini, baling semula yang lain (k 5 5 6); 'keep' sahaja baling "
                 "semula semua\n"
                 "  score <kategori>  isi kategori: nombor, id atau nama (s 7, s full_house)\n"
                 "  hint              langkah optimum dan jangkaan skor akhirnya\n"
                 "  show              tunjuk semula dadu dan kad skor\n"
                 "  help              senarai ini\n"
                 "  quit              keluar dari permainan (juga Ctrl-D)"),
        "accepted": "Diterima: keep <muka>, score <kategori>, hint, show, help, quit.",
        "unknown_command": "Arahan tidak dikenali: {cmd!r}.", "bad_face": "{token!r} bukan muka dadu (1 hingga 6).",
        "bad_faces": "Tidak boleh simpan {faces}: dadu ialah {dice}.",
        "no_rolls": "Tiada balingan lagi dalam giliran ini: pilih kategori (score <kategori>).",
        "keep_all": "Menyimpan kelima-lima dadu membazirkan balingan: pilih kategori (score <kategori>).",
        "need_category": "Kategori mana? score <nombor, id atau nama>.",
        "unknown_category": "Kategori tidak dikenali: {name!r}. Beri nombor 1-{n}, id atau nama. Terbuka: {open}.",
        "ambiguous_category": "{name!r} mungkin: {options}.", "filled": "{category} sudah diisi. Terbuka: {open}.",
        "joker": "Peraturan Joker tidak membenarkan {category} sekarang. Dibenarkan: {allowed}.",
        "hint": "Petunjuk: {action} (jangkaan skor akhir {value})", "bye": "Permainan tidak selesai. Selamat tinggal.",
    },
    "el": {
        "replay_legend": ("Κάθε γραμμή: ρίψη, ζάρια -> κίνηση· μια καταχώριση δείχνει = τους πόντους που προσθέτει "
                          "και το σύνολο ως τώρα."),
        "replay_legend_best": ("[{best} (V)]: η κίνηση ήταν βέλτιστη, V το αναμενόμενο τελικό σκορ του βέλτιστου "
                               "παιχνιδιού από εκεί\n[{best}: M (V); {regret} R]: η M ήταν βέλτιστη με αναμενόμενο "
                               "τελικό σκορ V, και η κίνηση που παίχτηκε έχασε R αναμενόμενους πόντους."),
        "multi_legend_best": ("[{best}: M; {regret} R]: η M ήταν η βέλτιστη κίνηση, και η κίνηση που παίχτηκε έχασε R "
                              "αναμενόμενους πόντους."),
        "replay_legend_coach": ("{{...}}: η πιθανότητα του στόχου μετά την κίνηση που παίχτηκε· καλύτερη: η κίνηση "
                                "που τη μεγιστοποιεί, και η πιθανότητά της."),
        "keep_none": "Δεν κρατάς κανένα: ξαναρίχνεις και τα πέντε ζάρια.",
        "confirm_zero": ("Η κατηγορία {category} δίνει 0 τώρα· η {better} θα έδινε {points}. Να μπει 0 στην "
                         "{category}; [y/N] "),
        "not_scored": "Δεν καταχωρίστηκε: διάλεξε ξανά.",
        "coach": "Προπονητής, {what}: {choices}", "coach_choice": "{action}: {probability} (αναμενόμενο {value})",
        "reach_what": "P(τελικό σκορ >= {target})", "win_what": "P(νίκη), εκτίμηση", "duel_what": "P(νίκη), ακριβής",
        "coach_replay": "{what} {probability}; καλύτερη {action} {best}",
        "roll": "Ρίψη", "agent": "Πράκτορας", "seed": "Σπόρος", "best": "βέλτιστο", "regret": "απώλεια",
        "final_score": "Τελικό σκορ", "optimal_value": "Αναμενόμενο σκορ βέλτιστου παιχνιδιού",
        "regret_total": "Αναμενόμενοι πόντοι που χάθηκαν έναντι του βέλτιστου παιχνιδιού",
        "scored": "{who}: {points} στην κατηγορία {category}, σύνολο {total}", "you": "Εσύ", "your_turn": "Η σειρά σου",
        "turn_of": "Σειρά: {who}",
        "help": ("Εντολές:\n"
                 "  keep <ζάρια>      κράτα αυτά τα ζάρια, ξαναρίξε τα άλλα (k 5 5 6)· σκέτο 'keep' τα ξαναρίχνει "
                 "όλα\n"
                 "  score <κατηγορία> συμπλήρωσε κατηγορία: αριθμός, id ή όνομα (s 7, s full_house)\n"
                 "  hint              η βέλτιστη κίνηση και το αναμενόμενο τελικό σκορ της\n"
                 "  show              δείξε ξανά τα ζάρια και τη βαθμολογία\n"
                 "  help              αυτή η λίστα\n"
                 "  quit              έξοδος από το παιχνίδι (και Ctrl-D)"),
        "accepted": "Αποδεκτές: keep <ζάρια>, score <κατηγορία>, hint, show, help, quit.",
        "unknown_command": "Άγνωστη εντολή: {cmd!r}.", "bad_face": "Το {token!r} δεν είναι τιμή ζαριού (1 έως 6).",
        "bad_faces": "Δεν μπορείς να κρατήσεις {faces}: τα ζάρια είναι {dice}.",
        "no_rolls": "Δεν απομένουν ρίψεις σε αυτόν τον γύρο: διάλεξε κατηγορία (score <κατηγορία>).",
        "keep_all": "Αν κρατήσεις και τα πέντε ζάρια, χάνεις τη ρίψη: διάλεξε κατηγορία (score <κατηγορία>).",
        "need_category": "Ποια κατηγορία; score <αριθμός, id ή όνομα>.",
        "unknown_category": "Άγνωστη κατηγορία: {name!r}. Δώσε αριθμό 1-{n}, id ή όνομα. Ελεύθερες: {open}.",
        "ambiguous_category": "Το {name!r} μπορεί να είναι: {options}.",
        "filled": "Η κατηγορία {category} έχει ήδη συμπληρωθεί. Ελεύθερες: {open}.",
        "joker": "Ο κανόνας Joker δεν επιτρέπει τώρα την κατηγορία {category}. Επιτρέπονται: {allowed}.",
        "hint": "Συμβουλή: {action} (αναμενόμενο τελικό σκορ {value})", "bye": "Το παιχνίδι έμεινε ημιτελές. Αντίο.",
    },
    "et": {
        "replay_legend": ("Iga rida: veeretus, täringud -> käik; kategooria täitmisel = lisatud punktid ja senine "
                          "kogusumma."),
        "replay_legend_best": ("[{best} (V)]: käik oli optimaalne, V on optimaalse mängu oodatav lõpptulemus sealt "
                               "edasi\n[{best}: M (V); {regret} R]: M oli optimaalne oodatava lõpptulemusega V ja "
                               "mängitud käik kaotas R oodatavat punkti."),
        "multi_legend_best": ("[{best}: M; {regret} R]: M oli optimaalne käik ja mängitud käik kaotas R oodatavat "
                              "punkti."),
        "replay_legend_coach": ("{{...}}: eesmärgi tõenäosus pärast mängitud käiku; parim: käik, mis selle "
                                "maksimeerib, ja selle tõenäosus."),
        "keep_none": "Midagi ei hoita: veeretad kõiki viit täringut uuesti.",
        "confirm_zero": "{category} annab praegu 0; {better} annaks {points}. Kas panna {category} alla 0? [y/N] ",
        "not_scored": "Ei täidetud: vali uuesti.",
        "coach": "Treener, {what}: {choices}", "coach_choice": "{action}: {probability} (oodatav {value})",
        "reach_what": "P(lõpptulemus >= {target})", "win_what": "P(võit), hinnang", "duel_what": "P(võit), täpne",
        "coach_replay": "{what} {probability}; parim {action} {best}",
        "roll": "Veeretus", "agent": "Agent", "seed": "Seeme", "best": "parim", "regret": "kaotus",
        "final_score": "Lõpptulemus", "optimal_value": "Optimaalse mängu oodatav tulemus",
        "regret_total": "Oodatav punktikaotus võrreldes optimaalse mänguga",
        "scored": "{who}: {points} kategooriasse {category}, kokku {total}", "you": "Sina", "your_turn": "Sinu käik",
        "turn_of": "Käigul on {who}",
        "help": ("Käsud:\n"
                 "  keep <täringud>    hoia need täringud, veereta teisi (k 5 5 6); ainult 'keep' veeretab kõiki\n"
                 "  score <kategooria> täida kategooria: number, id või nimi (s 7, s full_house)\n"
                 "  hint               optimaalne käik ja selle oodatav lõpptulemus\n"
                 "  show               näita uuesti täringuid ja punktitabelit\n"
                 "  help               see loetelu\n"
                 "  quit               lahku mängust (ka Ctrl-D)"),
        "accepted": "Lubatud: keep <täringud>, score <kategooria>, hint, show, help, quit.",
        "unknown_command": "Tundmatu käsk: {cmd!r}.", "bad_face": "{token!r} ei ole täringu tahk (1 kuni 6).",
        "bad_faces": "Ei saa hoida {faces}: täringud on {dice}.",
        "no_rolls": "Selles käigus pole veeretusi jäänud: vali kategooria (score <kategooria>).",
        "keep_all": "Kõigi viie täringu hoidmine raiskab veeretuse: vali kategooria (score <kategooria>).",
        "need_category": "Milline kategooria? score <number, id või nimi>.",
        "unknown_category": "Tundmatu kategooria: {name!r}. Anna number 1-{n}, id või nimi. Vabad: {open}.",
        "ambiguous_category": "{name!r} võib olla: {options}.", "filled": "{category} on juba täidetud. Vabad: {open}.",
        "joker": "Jokeri reegel ei luba praegu kategooriat {category}. Lubatud: {allowed}.",
        "hint": "Vihje: {action} (oodatav lõpptulemus {value})", "bye": "Mäng jäi pooleli. Head aega.",
    },
    "te": {
        "replay_legend": "ప్రతి లైన్: రోల్, డైస్ -> ఎత్తుగడ; స్కోర్ చేస్తే = కలిపిన పాయింట్లు, ఇప్పటి వరకు మొత్తం.",
        "replay_legend_best": ("[{best} (V)]: ఎత్తుగడ ఉత్తమమైనది, V అక్కడి నుంచి ఉత్తమ ఆట యొక్క అంచనా తుది స్కోర్\n"
                               "[{best}: M (V); {regret} R]: M ఉత్తమమైనది, దాని అంచనా తుది స్కోర్ V, ఆడిన ఎత్తుగడ R "
                               "అంచనా పాయింట్లు కోల్పోయింది."),
        "multi_legend_best": ("[{best}: M; {regret} R]: M ఉత్తమ ఎత్తుగడ, ఆడిన ఎత్తుగడ R అంచనా పాయింట్లు "
                              "కోల్పోయింది."),
        "replay_legend_coach": ("{{...}}: ఆడిన ఎత్తుగడ తర్వాత లక్ష్యం యొక్క సంభావ్యత; ఉత్తమం: దాన్ని గరిష్ఠం చేసే "
                                "ఎత్తుగడ, దాని సంభావ్యత."),
        "keep_none": "ఏదీ ఉంచుకోలేదు: ఐదు డైస్‌లనూ మళ్లీ వేస్తున్నారు.",
        "confirm_zero": "{category} ఇప్పుడు 0 ఇస్తుంది; {better} {points} ఇస్తుంది. {category}లో 0 నింపాలా? [y/N] ",
        "not_scored": "నింపలేదు: మళ్లీ ఎంచుకోండి.",
        "coach": "శిక్షకుడు, {what}: {choices}", "coach_choice": "{action}: {probability} (అంచనా {value})",
        "reach_what": "P(తుది స్కోర్ >= {target})", "win_what": "P(గెలుపు), అంచనా", "duel_what": "P(గెలుపు), ఖచ్చితం",
        "coach_replay": "{what} {probability}; ఉత్తమం {action} {best}",
        "roll": "రోల్", "agent": "ఏజెంట్", "seed": "సీడ్", "best": "ఉత్తమం", "regret": "నష్టం",
        "final_score": "తుది స్కోర్", "optimal_value": "ఉత్తమ ఆటలో అంచనా స్కోర్",
        "regret_total": "ఉత్తమ ఆటతో పోలిస్తే కోల్పోయిన అంచనా పాయింట్లు",
        "scored": "{who}: {category}లో {points}, మొత్తం {total}", "you": "మీరు", "your_turn": "మీ టర్న్",
        "turn_of": "{who} టర్న్",
        "help": ("ఆదేశాలు:\n"
                 "  keep <ముఖాలు>     ఈ డైస్ ఉంచుకుని మిగతావి మళ్లీ వేయండి (k 5 5 6); 'keep' మాత్రమే అన్నీ మళ్లీ "
                 "వేస్తుంది\n"
                 "  score <విభాగం>    ఒక విభాగాన్ని నింపండి: సంఖ్య, id లేదా పేరు (s 7, s full_house)\n"
                 "  hint              ఉత్తమ ఎత్తుగడ, దాని అంచనా తుది స్కోర్\n"
                 "  show              డైస్, స్కోర్ కార్డ్ మళ్లీ చూపించు\n"
                 "  help              ఈ జాబితా\n"
                 "  quit              ఆట నుంచి నిష్క్రమించు (Ctrl-D కూడా)"),
        "accepted": "అంగీకరించేవి: keep <ముఖాలు>, score <విభాగం>, hint, show, help, quit.",
        "unknown_command": "తెలియని ఆదేశం: {cmd!r}.", "bad_face": "{token!r} డైస్ ముఖం కాదు (1 నుంచి 6).",
        "bad_faces": "{faces} ఉంచుకోలేరు: డైస్ {dice}.",
        "no_rolls": "ఈ టర్న్‌లో రోల్స్ మిగల్లేదు: ఒక విభాగాన్ని ఎంచుకోండి (score <విభాగం>).",
        "keep_all": "ఐదు డైస్‌లనూ ఉంచుకుంటే రోల్ వృథా: ఒక విభాగాన్ని ఎంచుకోండి (score <విభాగం>).",
        "need_category": "ఏ విభాగం? score <సంఖ్య, id లేదా పేరు>.",
        "unknown_category": "తెలియని విభాగం: {name!r}. 1-{n} సంఖ్య, id లేదా పేరు ఇవ్వండి. ఖాళీ విభాగాలు: {open}.",
        "ambiguous_category": "{name!r} వీటిలో ఏదైనా కావచ్చు: {options}.",
        "filled": "{category} ఇప్పటికే నిండింది. ఖాళీ విభాగాలు: {open}.",
        "joker": "Joker నియమం ఇప్పుడు {category}ని అనుమతించదు. అనుమతించినవి: {allowed}.",
        "hint": "సూచన: {action} (అంచనా తుది స్కోర్ {value})", "bye": "ఆట పూర్తి కాలేదు. వీడ్కోలు.",
    },
}

TOOL_TEXT = Catalogue(MESSAGES, base=ENV_TEXT)
"""The tools' messages, then the environments'."""


def cut(value: object, limit: int = 80) -> str:
    """``value`` as text of at most ``limit`` characters and a mark (a line of 20 MB is not echoed back whole)."""
    s = str(value)
    return s if len(s) <= limit else f"{s[:limit]}... ({len(s) - limit:,} more characters)"


def shown(value: object, limit: int = 120) -> str:
    """Text from elsewhere (a file name, an agent named after one) as it may reach a terminal: every character that
    is not printable (escape codes that clear the screen, the bidirectional overrides) written as its Python
    escape (``\\x1b``, ``\\u202e``), and :func:`cut` at ``limit`` characters."""
    s = cut(value, limit)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def text(key: str, lang: str = "en") -> str:
    """Message ``key`` (the tools' or the environments') in ``lang`` (English if that language lacks it)."""
    return TOOL_TEXT.text(key, lang)


def fmt(key: str, lang: str = "en", **values: object) -> str:
    """Message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``values``."""
    return TOOL_TEXT.fmt(key, lang, **values)


def points_text(x: float | None) -> str | None:
    """Expected points to two decimals (None stays None)."""
    return None if x is None else f"{x:.2f}"


def regret_text(x: float | None) -> str | None:
    """A regret to two decimals, except that one above zero which would round to ``0.00`` reads ``< 0.01``: a move
    marked as not optimal never shows a regret of zero. None stays None."""
    return None if x is None else "< 0.01" if 0 < x < 0.005 else f"{x:.2f}"
