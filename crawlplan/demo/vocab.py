"""Word lists and sentence templates of the demo web, per language.

Real words in each language, so that language identification (CLD2, as Common Crawl uses) and
fastText classifiers see what they would see on the web: high-quality prose is long, explanatory
and topical; low-quality text is short, spammy and repetitive. The grammar is template-level
("real-ish"), which is enough for bag-of-n-gram classifiers and for language id.

Template slots: ``{n}`` topic noun, ``{N}`` capitalised topic noun, ``{a}`` adjective, ``{v}`` verb
(third person), ``{p}`` spam product, ``{P}`` capitalised product, ``{k}`` a number.
Every slot draws a fresh word.
"""

from __future__ import annotations

TOPICS = ("science", "education", "technology", "medicine", "general")
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "ja", "ru")


def _w(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split("|") if w.strip())


VOCAB: dict[str, dict] = {
    "en": {
        "nouns": {
            "science": _w("photosynthesis|the molecule|energy|gravity|the experiment|the hypothesis|the cell|"
                          "the ecosystem|the climate|the electron|evolution|the atmosphere|the measurement|"
                          "the galaxy|the protein|temperature|the magnetic field|the chemical reaction|"
                          "the sediment|the wavelength|the population of bacteria|the nucleus|the orbit"),
            "education": _w("the student|the curriculum|the lesson|the teacher|the learning outcome|"
                            "the assessment|the classroom|reading comprehension|feedback|the skill|"
                            "literacy|homework|the lecture|the textbook|the exam|the study group|"
                            "the syllabus|vocabulary|the learner|mathematics instruction|the course"),
            "technology": _w("the algorithm|the database|the compiler|the network|the software|the processor|"
                             "encryption|the interface|the server|memory|the protocol|the function|"
                             "the variable|the operating system|the cache|the data structure|the query|"
                             "the programming language|the hash table|the request|the thread|the browser"),
            "medicine": _w("the patient|the diagnosis|the symptom|the treatment|the vaccine|the infection|"
                           "blood pressure|the therapy|the clinical trial|the immune system|the dose|"
                           "the physician|the antibody|inflammation|the disease|the medication|"
                           "the heart|insulin|the blood test|the chronic condition|the surgeon"),
            "general": _w("history|the economy|the city|culture|the river|the government|agriculture|"
                          "the tradition|trade|the population|the language|the museum|the festival|"
                          "the railway|the harbour|the region|the constitution|the market|the village|"
                          "architecture|the century|the empire"),
        },
        "adjs": _w("important|complex|gradual|significant|careful|essential|measurable|consistent|"
                   "detailed|fundamental|reliable|practical|historical|gentle|critical|common"),
        "verbs": _w("influences|determines|explains|reduces|increases|regulates|depends on|supports|"
                    "transforms|describes|shapes|limits|improves|affects|requires|reveals"),
        "hq": _w(
            "{N} {v} {n}, which is why {n} is usually studied together with {n}.|"
            "To understand {n}, it helps to consider how {n} and {n} interact over a long period of time.|"
            "For example, when {n} changes, {n} tends to follow, because {n} {v} the {a} balance between them.|"
            "Researchers have shown that {n} {v} {n} in a {a} way, although the effect is not the same in every case.|"
            "This means that readers can explain {n} by examining {n} carefully and comparing it with {n}.|"
            "In practice, {n} {v} {n}, so a {a} description of both is needed before drawing conclusions.|"
            "Historically, the study of {n} began with simple observations of {n}, and later methods made the {a} role of {n} clear.|"
            "A useful way to think about {n} is as a system in which {n} {v} {n} step by step.|"
            "As a result, {n} {v} {n}, and this relationship can be tested with a {a} experiment.|"
            "It is important to distinguish {n} from {n}, since the two are often confused in everyday language.|"
            "The following section explains why {n} {v} {n} and what evidence supports this view.|"
            "In summary, {n} {v} {n}, and understanding this {a} link helps us reason about {n}."),
        "products": _w("cheap watches|weight loss pills|casino bonus|free spins|crypto signals|replica bags|"
                       "viagra|payday loans|followers|forex robot|slot games|diet tea|cheap flights|"
                       "lottery tickets|seo backlinks|phone cases|essay writing service"),
        "lq": _w(
            "CLICK HERE for {p}!!!|Best {p} deals {k} - cheap {p} sale|You won't believe what this celebrity did with {p}|"
            "Buy {p} online, free shipping, {k}% OFF|Top {k} {p} you need right now|"
            "Sign up now and win free {p}!!!|Limited offer. Act now. Don't miss out on {p}.|"
            "{P} {p} {p} cheap best buy {p}|Subscribe to our newsletter for {p}|"
            "Hot deal: {p} only today!!! Order now|Miracle {n} trick doctors hate, click to see|"
            "Download free {p} crack full version no virus|Amazing {p} shocking results {k}|"
            "Share this post and get {p}!!!|lol omg this {p} is sooo good click|"
            "Read more >> {p} | {p} | {p}"),
        "ui": {"home": "Home", "about": "About us", "contact": "Contact", "privacy": "Privacy policy",
               "more": "Read more", "related": "Related articles", "rights": "All rights reserved",
               "search": "Search", "archive": "Archive", "published": "Published"},
    },
    "de": {
        "nouns": {
            "science": _w("die Photosynthese|das Molekül|die Energie|die Schwerkraft|das Experiment|die Hypothese|"
                          "die Zelle|das Ökosystem|das Klima|das Elektron|die Evolution|die Atmosphäre|die Messung"),
            "education": _w("der Schüler|der Lehrplan|der Unterricht|die Lehrerin|die Prüfung|das Klassenzimmer|"
                            "das Lesen|die Rückmeldung|die Fähigkeit|die Hausaufgabe|die Vorlesung|das Lehrbuch"),
            "technology": _w("der Algorithmus|die Datenbank|der Compiler|das Netzwerk|die Software|der Prozessor|"
                             "die Verschlüsselung|die Schnittstelle|der Server|der Speicher|das Protokoll"),
            "medicine": _w("der Patient|die Diagnose|das Symptom|die Behandlung|der Impfstoff|die Infektion|"
                           "der Blutdruck|die Therapie|die Studie|das Immunsystem|die Dosis|der Arzt"),
            "general": _w("die Geschichte|die Wirtschaft|die Stadt|die Kultur|der Fluss|die Regierung|"
                          "die Landwirtschaft|die Tradition|der Handel|die Bevölkerung|die Sprache|das Museum"),
        },
        "adjs": _w("wichtig|komplex|allmählich|bedeutend|sorgfältig|wesentlich|messbar|zuverlässig|grundlegend"),
        "verbs": _w("beeinflusst|bestimmt|erklärt|verringert|erhöht|reguliert|unterstützt|verändert|beschreibt"),
        "hq": _w(
            "{N} {v} {n}, und deshalb wird {n} meistens zusammen mit {n} untersucht.|"
            "Um {n} zu verstehen, ist es hilfreich zu betrachten, wie {n} und {n} über längere Zeit zusammenwirken.|"
            "Wenn sich zum Beispiel {n} verändert, folgt {n} meistens, weil {n} das Gleichgewicht {v}.|"
            "Forscher haben gezeigt, dass {n} {n} auf eine {a}e Weise {v}, obwohl die Wirkung nicht immer gleich ist.|"
            "Das bedeutet, dass man {n} erklären kann, wenn man {n} sorgfältig mit {n} vergleicht.|"
            "Zusammenfassend lässt sich sagen, dass {n} {n} {v} und dass dieser Zusammenhang für {n} wichtig ist."),
        "products": _w("billige Uhren|Abnehmpillen|Casino Bonus|Freispiele|Kredit ohne Schufa|Follower kaufen|Gewinnspiel"),
        "lq": _w(
            "HIER KLICKEN für {p}!!!|Beste {p} Angebote {k} - jetzt {p} kaufen|Jetzt anmelden und {p} gewinnen!!!|"
            "Nur heute: {p} mit {k}% Rabatt|{P} {p} günstig kaufen {p}|Unglaublich: dieser {p} Trick schockiert alle|"
            "Newsletter abonnieren und {p} sichern|Gratis {p} sofort herunterladen"),
        "ui": {"home": "Startseite", "about": "Über uns", "contact": "Kontakt", "privacy": "Datenschutz",
               "more": "Weiterlesen", "related": "Ähnliche Artikel", "rights": "Alle Rechte vorbehalten",
               "search": "Suche", "archive": "Archiv", "published": "Veröffentlicht"},
    },
    "fr": {
        "nouns": {
            "science": _w("la photosynthèse|la molécule|l'énergie|la gravité|l'expérience|l'hypothèse|la cellule|"
                          "l'écosystème|le climat|l'électron|l'évolution|l'atmosphère|la mesure"),
            "education": _w("l'élève|le programme scolaire|la leçon|l'enseignant|l'évaluation|la classe|"
                            "la lecture|le retour|la compétence|les devoirs|le cours magistral|le manuel"),
            "technology": _w("l'algorithme|la base de données|le compilateur|le réseau|le logiciel|le processeur|"
                             "le chiffrement|l'interface|le serveur|la mémoire|le protocole"),
            "medicine": _w("le patient|le diagnostic|le symptôme|le traitement|le vaccin|l'infection|"
                           "la tension artérielle|la thérapie|l'essai clinique|le système immunitaire|la dose|le médecin"),
            "general": _w("l'histoire|l'économie|la ville|la culture|le fleuve|le gouvernement|l'agriculture|"
                          "la tradition|le commerce|la population|la langue|le musée"),
        },
        "adjs": _w("important|complexe|progressif|significatif|essentiel|mesurable|fiable|fondamental|pratique"),
        "verbs": _w("influence|détermine|explique|réduit|augmente|régule|soutient|transforme|décrit"),
        "hq": _w(
            "{N} {v} {n}, c'est pourquoi {n} est généralement étudié avec {n}.|"
            "Pour comprendre {n}, il est utile d'examiner comment {n} et {n} interagissent sur une longue période.|"
            "Par exemple, lorsque {n} change, {n} suit en général, parce que {n} {v} cet équilibre {a}.|"
            "Les chercheurs ont montré que {n} {v} {n} de manière {a}, même si l'effet n'est pas toujours le même.|"
            "Cela signifie que l'on peut expliquer {n} en comparant soigneusement {n} avec {n}.|"
            "En résumé, {n} {v} {n}, et comprendre ce lien {a} aide à raisonner sur {n}."),
        "products": _w("montres pas cher|pilules minceur|bonus casino|tours gratuits|crédit rapide|abonnés|loterie"),
        "lq": _w(
            "CLIQUEZ ICI pour {p}!!!|Meilleures offres {p} {k} - {p} pas cher|Inscrivez-vous et gagnez {p}!!!|"
            "Seulement aujourd'hui : {p} à -{k}%|{P} {p} acheter {p} promo|Incroyable : ce {p} choque tout le monde|"
            "Abonnez-vous à la newsletter pour {p}|Télécharger {p} gratuit maintenant"),
        "ui": {"home": "Accueil", "about": "À propos", "contact": "Contact", "privacy": "Confidentialité",
               "more": "Lire la suite", "related": "Articles similaires", "rights": "Tous droits réservés",
               "search": "Recherche", "archive": "Archives", "published": "Publié"},
    },
    "es": {
        "nouns": {
            "science": _w("la fotosíntesis|la molécula|la energía|la gravedad|el experimento|la hipótesis|la célula|"
                          "el ecosistema|el clima|el electrón|la evolución|la atmósfera|la medición"),
            "education": _w("el estudiante|el plan de estudios|la lección|el profesor|la evaluación|el aula|"
                            "la lectura|la retroalimentación|la habilidad|la tarea|la clase|el libro de texto"),
            "technology": _w("el algoritmo|la base de datos|el compilador|la red|el programa|el procesador|"
                             "el cifrado|la interfaz|el servidor|la memoria|el protocolo"),
            "medicine": _w("el paciente|el diagnóstico|el síntoma|el tratamiento|la vacuna|la infección|"
                           "la presión arterial|la terapia|el ensayo clínico|el sistema inmunitario|la dosis|el médico"),
            "general": _w("la historia|la economía|la ciudad|la cultura|el río|el gobierno|la agricultura|"
                          "la tradición|el comercio|la población|el idioma|el museo"),
        },
        "adjs": _w("importante|complejo|gradual|significativo|esencial|medible|fiable|fundamental|práctico"),
        "verbs": _w("influye en|determina|explica|reduce|aumenta|regula|apoya|transforma|describe"),
        "hq": _w(
            "{N} {v} {n}, por eso {n} se estudia normalmente junto con {n}.|"
            "Para entender {n}, conviene considerar cómo {n} y {n} interactúan durante un período largo.|"
            "Por ejemplo, cuando {n} cambia, {n} suele seguirlo, porque {n} {v} este equilibrio {a}.|"
            "Los investigadores han demostrado que {n} {v} {n} de forma {a}, aunque el efecto no siempre es igual.|"
            "Esto significa que se puede explicar {n} comparando con cuidado {n} y {n}.|"
            "En resumen, {n} {v} {n}, y comprender esta relación {a} ayuda a razonar sobre {n}."),
        "products": _w("relojes baratos|pastillas para adelgazar|bono de casino|giros gratis|préstamos rápidos|seguidores"),
        "lq": _w(
            "HAZ CLIC AQUÍ para {p}!!!|Mejores ofertas de {p} {k} - {p} barato|Regístrate ahora y gana {p}!!!|"
            "Solo hoy: {p} con {k}% de descuento|{P} {p} comprar {p} oferta|Increíble: este truco de {p} sorprende a todos|"
            "Suscríbete al boletín para {p}|Descargar {p} gratis ahora"),
        "ui": {"home": "Inicio", "about": "Quiénes somos", "contact": "Contacto", "privacy": "Privacidad",
               "more": "Leer más", "related": "Artículos relacionados", "rights": "Todos los derechos reservados",
               "search": "Buscar", "archive": "Archivo", "published": "Publicado"},
    },
    "it": {
        "nouns": {
            "science": _w("la fotosintesi|la molecola|l'energia|la gravità|l'esperimento|l'ipotesi|la cellula|"
                          "l'ecosistema|il clima|l'elettrone|l'evoluzione|l'atmosfera|la misurazione"),
            "education": _w("lo studente|il programma scolastico|la lezione|l'insegnante|la valutazione|l'aula|"
                            "la lettura|il riscontro|la competenza|i compiti|il corso|il libro di testo"),
            "technology": _w("l'algoritmo|la banca dati|il compilatore|la rete|il software|il processore|"
                             "la crittografia|l'interfaccia|il server|la memoria|il protocollo"),
            "medicine": _w("il paziente|la diagnosi|il sintomo|la cura|il vaccino|l'infezione|la pressione sanguigna|"
                           "la terapia|la sperimentazione clinica|il sistema immunitario|la dose|il medico"),
            "general": _w("la storia|l'economia|la città|la cultura|il fiume|il governo|l'agricoltura|"
                          "la tradizione|il commercio|la popolazione|la lingua|il museo"),
        },
        "adjs": _w("importante|complesso|graduale|significativo|essenziale|misurabile|affidabile|fondamentale"),
        "verbs": _w("influenza|determina|spiega|riduce|aumenta|regola|sostiene|trasforma|descrive"),
        "hq": _w(
            "{N} {v} {n}, ed è per questo che {n} viene studiato insieme a {n}.|"
            "Per capire {n}, è utile considerare come {n} e {n} interagiscono in un lungo periodo di tempo.|"
            "Per esempio, quando {n} cambia, anche {n} di solito cambia, perché {n} {v} questo equilibrio {a}.|"
            "I ricercatori hanno dimostrato che {n} {v} {n} in modo {a}, anche se l'effetto non è sempre lo stesso.|"
            "Questo significa che si può spiegare {n} confrontando con attenzione {n} e {n}.|"
            "In sintesi, {n} {v} {n}, e comprendere questo legame {a} aiuta a ragionare su {n}."),
        "products": _w("orologi economici|pillole dimagranti|bonus casinò|giri gratis|prestiti veloci|follower"),
        "lq": _w(
            "CLICCA QUI per {p}!!!|Migliori offerte {p} {k} - {p} economico|Iscriviti ora e vinci {p}!!!|"
            "Solo oggi: {p} con sconto del {k}%|{P} {p} compra {p} offerta|Incredibile: questo trucco {p} sconvolge tutti|"
            "Iscriviti alla newsletter per {p}|Scarica {p} gratis adesso"),
        "ui": {"home": "Home", "about": "Chi siamo", "contact": "Contatti", "privacy": "Privacy",
               "more": "Leggi tutto", "related": "Articoli correlati", "rights": "Tutti i diritti riservati",
               "search": "Cerca", "archive": "Archivio", "published": "Pubblicato"},
    },
    "nl": {
        "nouns": {
            "science": _w("de fotosynthese|het molecuul|de energie|de zwaartekracht|het experiment|de hypothese|"
                          "de cel|het ecosysteem|het klimaat|het elektron|de evolutie|de atmosfeer|de meting"),
            "education": _w("de leerling|het leerplan|de les|de leraar|de toets|het klaslokaal|het lezen|"
                            "de feedback|de vaardigheid|het huiswerk|het college|het leerboek"),
            "technology": _w("het algoritme|de database|de compiler|het netwerk|de software|de processor|"
                             "de versleuteling|de interface|de server|het geheugen|het protocol"),
            "medicine": _w("de patiënt|de diagnose|het symptoom|de behandeling|het vaccin|de infectie|de bloeddruk|"
                           "de therapie|het klinisch onderzoek|het immuunsysteem|de dosis|de arts"),
            "general": _w("de geschiedenis|de economie|de stad|de cultuur|de rivier|de regering|de landbouw|"
                          "de traditie|de handel|de bevolking|de taal|het museum"),
        },
        "adjs": _w("belangrijk|complex|geleidelijk|aanzienlijk|zorgvuldig|wezenlijk|meetbaar|betrouwbaar"),
        "verbs": _w("beïnvloedt|bepaalt|verklaart|vermindert|verhoogt|regelt|ondersteunt|verandert|beschrijft"),
        "hq": _w(
            "{N} {v} {n}, en daarom wordt {n} meestal samen met {n} onderzocht.|"
            "Om {n} te begrijpen, helpt het om na te gaan hoe {n} en {n} gedurende lange tijd samenwerken.|"
            "Wanneer bijvoorbeeld {n} verandert, volgt {n} meestal, omdat {n} het {a}e evenwicht {v}.|"
            "Onderzoekers hebben aangetoond dat {n} {n} op een {a}e manier {v}, hoewel het effect niet altijd gelijk is.|"
            "Dit betekent dat men {n} kan verklaren door {n} zorgvuldig met {n} te vergelijken.|"
            "Samengevat {v} {n} {n}, en dit verband helpt ons om over {n} na te denken."),
        "products": _w("goedkope horloges|afslankpillen|casino bonus|gratis spins|snelle lening|volgers"),
        "lq": _w(
            "KLIK HIER voor {p}!!!|Beste {p} aanbiedingen {k} - goedkope {p}|Meld je nu aan en win {p}!!!|"
            "Alleen vandaag: {p} met {k}% korting|{P} {p} kopen {p} actie|Ongelooflijk: deze {p} truc schokt iedereen|"
            "Abonneer op de nieuwsbrief voor {p}|Download {p} nu gratis"),
        "ui": {"home": "Home", "about": "Over ons", "contact": "Contact", "privacy": "Privacybeleid",
               "more": "Lees meer", "related": "Gerelateerde artikelen", "rights": "Alle rechten voorbehouden",
               "search": "Zoeken", "archive": "Archief", "published": "Gepubliceerd"},
    },
    "ja": {
        "nouns": {
            "science": _w("光合成|分子|エネルギー|重力|実験|仮説|細胞|生態系|気候|電子|進化|大気|測定"),
            "education": _w("学生|教育課程|授業|教師|評価|教室|読解力|学習|能力|宿題|講義|教科書"),
            "technology": _w("アルゴリズム|データベース|コンパイラ|ネットワーク|ソフトウェア|プロセッサ|暗号化|"
                             "インターフェース|サーバー|メモリ|プロトコル"),
            "medicine": _w("患者|診断|症状|治療|ワクチン|感染症|血圧|療法|臨床試験|免疫系|投与量|医師"),
            "general": _w("歴史|経済|都市|文化|川|政府|農業|伝統|貿易|人口|言語|博物館"),
        },
        "adjs": _w("重要な|複雑な|段階的な|大きな|慎重な|基本的な|確かな|実用的な"),
        "verbs": _w("影響を与える|決定する|説明する|減らす|増やす|調整する|支える|変える"),
        "hq": _w(
            "{n}は{n}に{v}ため、{n}は通常{n}と一緒に研究されています。|"
            "{n}を理解するためには、{n}と{n}が長い時間をかけてどのように関わり合うかを考えることが大切です。|"
            "例えば、{n}が変化すると、{n}もそれに続く傾向があります。これは{n}が{a}均衡に{v}からです。|"
            "研究者たちは、{n}が{n}に{a}形で{v}ことを示しましたが、その効果は常に同じではありません。|"
            "つまり、{n}と{n}を注意深く比較することで、{n}を説明することができます。|"
            "まとめると、{n}は{n}に{v}ので、この{a}関係を理解することは{n}について考える助けになります。"),
        "products": _w("格安時計|ダイエットサプリ|カジノボーナス|無料スピン|即日融資|フォロワー"),
        "lq": _w(
            "今すぐクリック！{p}！！！|{p}最安値{k}円セール|登録するだけで{p}が当たる！！|"
            "本日限定{p}{k}%オフ|{p}{p}激安{p}購入|衝撃！{p}の秘密|メルマガ登録で{p}プレゼント|{p}無料ダウンロード"),
        "ui": {"home": "ホーム", "about": "会社概要", "contact": "お問い合わせ", "privacy": "プライバシーポリシー",
               "more": "続きを読む", "related": "関連記事", "rights": "無断転載を禁じます",
               "search": "検索", "archive": "アーカイブ", "published": "公開日"},
    },
    "ru": {
        "nouns": {
            "science": _w("фотосинтез|молекула|энергия|гравитация|эксперимент|гипотеза|клетка|экосистема|климат|"
                          "электрон|эволюция|атмосфера|измерение"),
            "education": _w("студент|учебный план|урок|учитель|оценка|класс|чтение|обратная связь|навык|"
                            "домашнее задание|лекция|учебник"),
            "technology": _w("алгоритм|база данных|компилятор|сеть|программа|процессор|шифрование|интерфейс|"
                             "сервер|память|протокол"),
            "medicine": _w("пациент|диагноз|симптом|лечение|вакцина|инфекция|давление|терапия|"
                           "клиническое исследование|иммунная система|доза|врач"),
            "general": _w("история|экономика|город|культура|река|правительство|сельское хозяйство|традиция|"
                          "торговля|население|язык|музей"),
        },
        "adjs": _w("важный|сложный|постепенный|значительный|основной|надёжный|практический|точный"),
        "verbs": _w("влияет на|определяет|объясняет|снижает|увеличивает|регулирует|поддерживает|изменяет"),
        "hq": _w(
            "{N} {v} {n}, поэтому {n} обычно изучают вместе с {n}.|"
            "Чтобы понять {n}, полезно рассмотреть, как {n} и {n} взаимодействуют в течение долгого времени.|"
            "Например, когда меняется {n}, обычно меняется и {n}, потому что {n} {v} это {a} равновесие.|"
            "Исследователи показали, что {n} {v} {n} {a} образом, хотя эффект не всегда одинаков.|"
            "Это означает, что можно объяснить {n}, внимательно сравнивая {n} и {n}.|"
            "Таким образом, {n} {v} {n}, и понимание этой связи помогает рассуждать о {n}."),
        "products": _w("дешёвые часы|таблетки для похудения|бонус казино|бесплатные вращения|быстрый кредит|подписчики"),
        "lq": _w(
            "ЖМИ СЮДА за {p}!!!|Лучшие предложения {p} {k} - дешёвые {p}|Зарегистрируйся и выиграй {p}!!!|"
            "Только сегодня: {p} со скидкой {k}%|{P} {p} купить {p} акция|Шок: этот трюк с {p} удивил всех|"
            "Подпишись на рассылку и получи {p}|Скачать {p} бесплатно"),
        "ui": {"home": "Главная", "about": "О нас", "contact": "Контакты", "privacy": "Конфиденциальность",
               "more": "Читать далее", "related": "Похожие статьи", "rights": "Все права защищены",
               "search": "Поиск", "archive": "Архив", "published": "Опубликовано"},
    },
}

# Name material for hosts, forum users and slugs: pronounceable, language-neutral.
SYLLABLES = _w("ka|lo|mi|ra|ten|vo|sel|bri|da|nor|fi|gal|ut|pen|zor|el|mar|tis|qua|ron|bel|cor|dun|ix|ve|lan|"
               "sa|tor|me|ri|no|ba|ke|lu|po|ger|hal|vin|os|tri")
SITE_WORDS = _w("science|learn|tech|health|news|daily|world|guide|info|hub|journal|online|central|review|"
                "times|lab|academy|clinic|code|forum|press|post|digest|base|notes|atlas|library|media")
