//! The screen's vocabulary in every language it covers: the feature bits of a sentence
//! (`features`) and, per feature and language, the words and phrases that carry it.
//!
//! Languages: English, German, French, Spanish, Portuguese, Italian, Dutch, Russian,
//! Chinese, Japanese, Korean, Turkish, Polish, Swedish, Arabic, Hindi (Devanagari and
//! romanised) and Indonesian, Vietnamese ([`LANGUAGES`]).
//!
//! Entries are written folded (`fold`: lower case, no accents — `gormezden`, `bo qua` —,
//! punctuation as a space: `don t`, `l utilisateur`), separated by `|`. A plain entry
//! matches whole words; `stem*` matches a word that starts with `stem` (`instruction*`:
//! `instructions`, `instrukcje`'s `instrukcj*`); `~part` matches anywhere (Arabic words
//! with their attached articles and particles). Entries in scripts without spaces
//! between words (Chinese, Japanese, Korean) match anywhere. General vocabulary of the
//! shapes (dismissing the reader's instructions, declaring them void, giving it a new
//! role, sending its data, claiming to speak for its makers, the writer's
//! own instructions), never phrases of one corpus. Data only.

/// The languages the vocabulary covers, as ISO 639-1 codes.
pub const LANGUAGES: [&str; 18] = [
    "en", "de", "fr", "es", "pt", "it", "nl", "ru", "zh", "ja", "ko", "tr", "pl", "sv", "ar", "hi",
    "id", "vi",
];

// Feature bits (bit 0 unused).
pub(super) const MONEY_VERB: u64 = 1 << 1;
pub(super) const SEND_VERB: u64 = 1 << 2;
pub(super) const BEC: u64 = 1 << 3;
pub(super) const GIFT: u64 = 1 << 4;
pub(super) const CRED_NOUN: u64 = 1 << 5;
pub(super) const CRED_VERB: u64 = 1 << 6;
pub(super) const URGENT: u64 = 1 << 7;
pub(super) const THREAT: u64 = 1 << 8;
pub(super) const AUTHORITY: u64 = 1 << 9;
pub(super) const SECRECY: u64 = 1 << 10;
pub(super) const ADDRESSEE: u64 = 1 << 11;
pub(super) const META: u64 = 1 << 12;
pub(super) const LURE: u64 = 1 << 13;
pub(super) const TODO: u64 = 1 << 14;
pub(super) const DATA_OBJ: u64 = 1 << 15;
pub(super) const NEGATION: u64 = 1 << 16;
pub(super) const URL: u64 = 1 << 17;
pub(super) const EMAIL: u64 = 1 << 18;
pub(super) const PHONE: u64 = 1 << 19;
pub(super) const ACCOUNT: u64 = 1 << 20;
pub(super) const AMOUNT: u64 = 1 << 21;
pub(super) const HIDDEN: u64 = 1 << 22;
pub(super) const LINK_WORD: u64 = 1 << 23;
pub(super) const DESTRUCTIVE: u64 = 1 << 24;
pub(super) const DISCUSSION: u64 = 1 << 25;
pub(super) const SPELLED: u64 = 1 << 26;
/// Setting something aside: ignore, forget, disregard, pay no attention to.
pub(super) const DISMISS: u64 = 1 << 27;
/// The reader's instructions: instructions, rules, guidelines, what it was told.
pub(super) const RULES: u64 = 1 << 28;
/// Which ones: previous, earlier, all, so far.
pub(super) const PRIOR: u64 = 1 << 29;
/// Where in the text: above, at the top (the prompt before the data).
pub(super) const ABOVE: u64 = 1 << 30;
/// Declared void: no longer apply, cancelled, never written.
pub(super) const VOIDED: u64 = 1 << 31;
/// The reader addressed: you, your, du, tu, あなた, 당신.
pub(super) const YOU: u64 = 1 << 32;
/// A new role from now on: from now on, henceforth, your role is, you are now.
pub(super) const NEW_ROLE: u64 = 1 << 33;
/// Without its limits: no restrictions, without asking, every payment.
pub(super) const UNBOUND: u64 = 1 << 34;
/// The answer's fields and the user's attention: importance, escalate, notify the user.
pub(super) const CONTROL: u64 = 1 << 35;
/// Permission claimed: authorised, allowed, cleared.
pub(super) const PERMIT: u64 = 1 << 36;
/// The system prompt, the reader's configuration.
pub(super) const SYS_PROMPT: u64 = 1 << 37;
/// Showing or printing something.
pub(super) const REVEAL: u64 = 1 << 38;
/// Writing about attacks: injection, jailbreak, attacker, dataset (counts for the whole
/// text).
pub(super) const ABOUT_ATTACKS: u64 = 1 << 39;
/// A technical rule set (`debian/rules`, udev or firewall rules): not the reader's.
pub(super) const TECHNICAL: u64 = 1 << 40;
/// Replying or pasting into the reply: "reply with…", "antworte…".
pub(super) const REPLY: u64 = 1 << 41;
/// The writer's own: "the instructions I sent", `que mandei`, `yang kukirim` (instructions
/// the writer voids are not the reader's).
pub(super) const MINE: u64 = 1 << 42;

/// Per feature and language, the entries (see the module doc).
pub(super) const LEXICON: &[(u64, &str, &str)] = &[
    // --- dismissing the reader's instructions ---
    (
        DISMISS,
        "en",
        "ignore|ignoring|disregard|disregarding|forget|forgetting|set aside|put aside|leave aside|lay aside|throw away|discard|abandon|bypass|override|overrule|scrap|throw out|pay no attention|stop following|do not follow|don t follow|no longer follow|stop obeying|never mind|pretend|imagine|drop",
    ),
    (
        DISMISS,
        "de",
        "ignoriere|ignorier|ignorieren sie|vergiss|vergesst|vergessen sie|missachte|missachten sie|ausser acht|nicht beachten|beachte nicht|verwirf|verwerfen|uberschreibe|hinweg|nicht mehr befolgen|befolge nicht|tu so als|tun sie so als",
    ),
    (
        DISMISS,
        "fr",
        "ignore|ignorez|ignorer|ignorons|oublie|oubliez|oublier|oublions|ne tiens plus compte|ne tiens pas compte|ne tenez pas compte|ne tenez plus compte|fais abstraction|faites abstraction|neglig*|contourn*|mets de cote|laisse de cote|fais comme si|faites comme si|ne suis plus|ne suivez plus",
    ),
    (
        DISMISS,
        "es",
        "ignora|ignore|ignoren|ignorad|ignorar|olvida|olvide|olviden|olvidad|olvidar|olvidate|deja de lado|dejar de lado|haz caso omiso|no hagas caso|descarta|descarte|descartar|omite|omitir|pasa por alto|desconsidera|desconsidere|desconsiderar|haz como si|finge que",
    ),
    (
        DISMISS,
        "pt",
        "ignore|ignora|ignorem|ignorar|esqueca|esquece|esquecam|esquecer|desconsidere|desconsidera|desconsiderem|desconsiderar|despreze|despreza|deixe de lado|deixa de lado|nao siga|faca de conta|finja que",
    ),
    (
        DISMISS,
        "it",
        "ignora|ignorate|ignorare|ignori|dimentica|dimenticate|dimenticare|dimentichi|non tenere conto|non tenere piu conto|trascur*|tralasci*|lascia perdere|non seguire piu|non seguire|fai finta|fingi che",
    ),
    (
        DISMISS,
        "nl",
        "negeer|negeren|ignoreer|ignoreren|vergeet|vergeten|laat los|laat varen|sla over|volg niet|doe alsof|houd geen rekening",
    ),
    (
        DISMISS,
        "ru",
        "игнорир*|проигнорир*|забудь|забудьте|забыть|не обращай|не обращайте|отбрось*|пренебреги*|не следуй|не выполняй|не учитывай|не учитывайте|считай что|притворись",
    ),
    (
        DISMISS,
        "zh",
        "忽略|忽视|无视|不要理会|不用再管|不用管|别管|忘记|忘掉|抛开|不要遵守|不再遵守|不必遵守|就当",
    ),
    (
        DISMISS,
        "ja",
        "無視|忘れ|気にしなくて|気にしないで|従わなくて|従わないで|なかったことに",
    ),
    (
        DISMISS,
        "ko",
        "무시|잊어|잊고|잊으|신경 쓰지|따르지 말|따르지 마",
    ),
    (
        DISMISS,
        "tr",
        "yok say*|gormezden gel*|unut*|dikkate alma|bir kenara birak*|umursama*|uyma|takma|gibi davran",
    ),
    (
        DISMISS,
        "pl",
        "zignoruj*|ignoruj*|zapomnij*|nie zwracaj|pomin*|nie stosuj|odrzuc*|nie przestrzegaj|udawaj",
    ),
    (
        DISMISS,
        "sv",
        "ignorera*|glom|strunta*|bortse|bortse fran|bry dig inte|folj inte|latsas",
    ),
    (
        DISMISS,
        "ar",
        "~تجاهل|لا تلتفت|لا تهتم|انس|~أهمل|~اهمل|لا تتبع|لا تلتزم|~تخل عن|تصرف كأن|تظاهر",
    ),
    (
        DISMISS,
        "hi",
        "अनदेख*|नजरअंदाज*|ध्यान मत दो|ध्यान न दें|ध्यान मत दीजिए|भूल जाओ|भूल जाएं|भूल जाइए|भुला दो|मान लो कि|ignore|bhool jao|bhul jao|nazarandaaz|andekha",
    ),
    (
        DISMISS,
        "id",
        "abaikan|lupakan|jangan ikuti|jangan hiraukan|kesampingkan|tinggalkan|anggap saja|berpura pura",
    ),
    (
        DISMISS,
        "vi",
        "bo qua|phot lo|quen di|hay quen|dung ban tam|khong can quan tam|dung lam theo|dung tuan theo|coi nhu|gia vo",
    ),
    // --- the reader's instructions ---
    (
        RULES,
        "en",
        "instruction*|rule|rules|guideline*|guidance|directive*|direction|directions|prompt|prompts|restriction*|constraint*|guardrail*|safeguard*|programming|you were told|you ve been told|you have been told|you were given|you were configured|configured with|set up with|you were taught",
    ),
    (
        RULES,
        "de",
        "anweisung*|instruktion*|regel|regeln|vorgabe*|richtlinie*|befehl*|systemprompt|anordnung*|aufgetragen|einschrankung*|was man dir",
    ),
    (
        RULES,
        "fr",
        "instruction*|consigne*|regle|regles|directive*|prompt|ordres|restriction*|ce qu on t a|ce qu on vous a|t a demande|t a dit",
    ),
    (
        RULES,
        "es",
        "instruccion*|regla|reglas|directri*|indicacion*|orden|ordenes|prompt|restriccion*|te indicaron|te dijeron|te han dicho",
    ),
    (
        RULES,
        "pt",
        "instruc*|regra|regras|diretriz*|ordens|orientac*|restric*|prompt|lhe foi dito|te disseram|lhe disseram",
    ),
    (
        RULES,
        "it",
        "istruzion*|regol*|indicazion*|direttiv*|restrizion*|prompt|ti e stato detto|ti hanno detto",
    ),
    (
        RULES,
        "nl",
        "instructie*|regel|regels|richtlijn*|aanwijzing*|opdracht*|opgedragen|beperking*|prompt",
    ),
    (
        RULES,
        "ru",
        "инструкц*|указани*|правил*|распоряжени*|ограничени*|промпт*|что тебе говорили|что вам говорили",
    ),
    (
        RULES,
        "zh",
        "指令|指示|规则|規則|要求|限制|提示词|系统提示|准则",
    ),
    (RULES, "ja", "指示|ルール|規則|命令|プロンプト|制限|指図"),
    (RULES, "ko", "지시|지침|규칙|명령|프롬프트|제한"),
    (RULES, "tr", "talimat*|kural*|yonerge*|komut*|kisitlama*"),
    (
        RULES,
        "pl",
        "instrukcj*|polecen*|zasad*|regul*|wytyczn*|ogranicze*|prompt*",
    ),
    (
        RULES,
        "sv",
        "instruktion*|regel|regler|reglerna|riktlinj*|direktiv*|begransning*|blivit tillsagd|fatt hora",
    ),
    (
        RULES,
        "ar",
        "~تعليمات|~توجيهات|~أوامر|~اوامر|~قواعد|~إرشادات|~ارشادات|~القيود",
    ),
    (
        RULES,
        "hi",
        "निर्देश*|नियम*|आदेश*|हिदायत*|nirdesh*|niyam*|instructions",
    ),
    (
        RULES,
        "id",
        "instruksi*|arahan*|perintah*|aturan*|pedoman|petunjuk|batasan",
    ),
    (
        RULES,
        "vi",
        "huong dan|chi dan|chi thi|quy tac|menh lenh|quy dinh|gioi han",
    ),
    // --- which instructions: the earlier ones ---
    (
        PRIOR,
        "en",
        "previous|previously|prior|earlier|before|preceding|original|initial|so far|until now|up to now|existing|all|every|any|everything|anything|whatever|you received|you were given|the user s|user s|the owner s|entire|whole|complete",
    ),
    (
        PRIOR,
        "de",
        "vorherig*|bisherig*|fruher*|zuvor|vorher|alle|alles|bis jetzt|bisher|ursprunglich*|jegliche",
    ),
    (
        PRIOR,
        "fr",
        "precedent*|anterieur*|toutes|tous|tout|jusqu ici|auparavant|avant|initiales|originales",
    ),
    (
        PRIOR,
        "es",
        "anterior*|previa*|previo*|todas|todos|todo|antes|hasta ahora|originales|iniciales|cualquier",
    ),
    (
        PRIOR,
        "pt",
        "anterior*|previa*|todas|todos|tudo|antes|ate agora|originais|iniciais|qualquer",
    ),
    (
        PRIOR,
        "it",
        "precedent*|finora|tutte|tutti|tutto|prima|originali|iniziali|qualsiasi|ricevute",
    ),
    (
        PRIOR,
        "nl",
        "eerder*|vorige|voorgaande|alle|alles|tot nu toe|daarvoor|oorspronkelijke",
    ),
    (
        PRIOR,
        "ru",
        "предыдущ*|прежн*|ранее|раньше|все|любые|до этого|первоначальн*",
    ),
    (PRIOR, "zh", "之前|以前|先前|所有|全部|此前|一切|任何|原来"),
    (
        PRIOR,
        "ja",
        "これまで|以前|前に|すべて|全て|今まで|先ほど|最初の",
    ),
    (PRIOR, "ko", "이전|지금까지|모든|앞서|기존|전부|예전"),
    (
        PRIOR,
        "tr",
        "onceki|simdiye kadar|tum|butun|daha once|hepsini|hepsi|her",
    ),
    (
        PRIOR,
        "pl",
        "poprzedni*|wczesniej*|wszystk*|do tej pory|dotychczasow*|kazd*",
    ),
    (
        PRIOR,
        "sv",
        "tidigare|alla|allt|foregaende|hittills|ursprungliga",
    ),
    (PRIOR, "ar", "~السابق|~سابقة|من قبل|جميع|كل|سابقا|~الأصلية"),
    (
        PRIOR,
        "hi",
        "पिछले|पिछली|पहले|सभी|सारे|सारी|pichhle|pichle|saare|sabhi|pehle",
    ),
    (PRIOR, "id", "sebelumnya|semua|seluruh|terdahulu|selama ini"),
    (PRIOR, "vi", "truoc do|truoc day|tat ca|moi|truoc|toan bo"),
    // --- where: above, at the top ---
    (
        ABOVE,
        "en",
        "above|at the top|at the start|in the system message",
    ),
    (ABOVE, "de", "oben|obig*|weiter oben"),
    (ABOVE, "fr", "ci dessus|plus haut"),
    (ABOVE, "es", "arriba|anteriormente mencionad*"),
    (ABOVE, "pt", "acima"),
    (ABOVE, "it", "qui sopra|sopra"),
    (ABOVE, "nl", "hierboven|bovenstaande"),
    (ABOVE, "ru", "выше|вышеизложенн*|вышеуказанн*"),
    (ABOVE, "zh", "上面|上述|以上"),
    (ABOVE, "ja", "上に|上記|上の"),
    (ABOVE, "ko", "위에|위의|상기"),
    (ABOVE, "tr", "yukaridaki|yukarida"),
    (ABOVE, "pl", "powyzsz*|powyzej"),
    (ABOVE, "sv", "ovan|ovanstaende"),
    (ABOVE, "ar", "أعلاه|اعلاه"),
    (ABOVE, "hi", "ऊपर|upar"),
    (ABOVE, "id", "di atas"),
    (ABOVE, "vi", "o tren|phia tren|ben tren"),
    // --- declared void ---
    (
        VOIDED,
        "en",
        "no longer apply|no longer applies|do not apply|don t apply|does not apply|doesn t apply|no longer valid|no longer in effect|no longer binding|not binding|binds you|never written|never existed|never given|do not exist|don t exist|void|cancelled|canceled|revoked|rescinded|lifted|invalid|obsolete|outdated|only a test|just a test|were deleted|were removed|are suspended|have expired|are over|superseded|replaced|overridden|withdrawn|retired",
    ),
    (
        VOIDED,
        "de",
        "gelten nicht mehr|gilt nicht mehr|nicht mehr gultig|ungultig|aufgehoben|ausser kraft|widerrufen|hinfallig|nie gegeben|existieren nicht|nicht mehr bindend|gestrichen",
    ),
    (
        VOIDED,
        "fr",
        "ne s appliquent pas|ne s appliquent plus|ne comptent plus|jamais ete ecrit*|n existent pas|annule*|levee*|ne sont plus valables|ne sont plus valides|caduque*|revoque*|plus en vigueur",
    ),
    (
        VOIDED,
        "es",
        "ya no tienen validez|ya no valen|ya no se aplican|no se aplican|anulad*|cancelad*|sin efecto|nunca existieron|revocad*|no tienen validez|ya no son validas|ya no rigen",
    ),
    (
        VOIDED,
        "pt",
        "nao valem mais|nao se aplicam|revogad*|anulad*|cancelad*|nunca foram escrit*|sem efeito|nao sao mais validas|nao estao mais em vigor",
    ),
    (
        VOIDED,
        "it",
        "non sono piu valide|non valgono piu|non si applicano|annullat*|revocat*|mai state scritte|non sono piu in vigore|decadute",
    ),
    (
        VOIDED,
        "nl",
        "vervallen|gelden niet meer|ingetrokken|nooit bestaan|ongeldig|niet meer geldig|opgeheven|niet langer van toepassing",
    ),
    (
        VOIDED,
        "ru",
        "больше не действуют|не действуют|отменены|отменен*|недействительн*|никогда не было|не применяются|аннулирован*|утратили силу",
    ),
    (
        VOIDED,
        "zh",
        "作废|无效|已取消|取消了|不再适用|不再有效|从来没有|废除|失效|不算数",
    ),
    (
        VOIDED,
        "ja",
        "無効|取り消|適用されません|存在しなかった|廃止|効力を失",
    ),
    (
        VOIDED,
        "ko",
        "유효하지 않|취소되었|취소됐|적용되지 않|없었던|무효|폐기",
    ),
    (
        VOIDED,
        "tr",
        "gecerli degil*|iptal edildi|iptal|hic yazilmamis|gecersiz|yururlukte degil|kaldirildi",
    ),
    (
        VOIDED,
        "pl",
        "przestaly obowiazywac|nie obowiazuja|anulowan*|uniewaznion*|nigdy ich nie bylo|niewazne|uchylon*",
    ),
    (
        VOIDED,
        "sv",
        "galler inte|upphavd*|ogiltig*|aldrig har skrivits|aldrig funnits|inte langre|makulerad*",
    ),
    (
        VOIDED,
        "ar",
        "~لم تعد|~ألغيت|~الغيت|~ملغاة|لم تكتب|~باطلة|لا تنطبق",
    ),
    (VOIDED, "hi", "लागू नहीं|रद्द|कभी लिखे|अमान्य"),
    (
        VOIDED,
        "id",
        "tidak berlaku|dibatalkan|tidak pernah ditulis|batal|tidak sah",
    ),
    (
        VOIDED,
        "vi",
        "khong con hieu luc|bi huy|da bi huy|chua tung|khong con ap dung|vo hieu",
    ),
    // --- the reader addressed ---
    (YOU, "en", "you|your|yours|yourself"),
    (YOU, "de", "du|dein|deine|deinen|deiner|deines|dir|dich"),
    (YOU, "fr", "tu|te|t|tes|ton|toi|vous|vos|votre"),
    (YOU, "es", "tu|te|tus|usted|ti"),
    (YOU, "pt", "voce|seu|sua|suas|seus|tu|te|lhe"),
    (YOU, "it", "tu|ti|tuo|tua|tue|tuoi|sei"),
    (YOU, "nl", "je|jij|jouw|u|uw"),
    (
        YOU,
        "ru",
        "ты|тебе|тебя|твои|твой|твоя|твоих|вы|вам|ваши|ваш",
    ),
    (YOU, "zh", "你|您"),
    (YOU, "ja", "あなた|君|ください|しなさい"),
    (YOU, "ko", "당신|너는|너의|귀하|세요|십시오|해라"),
    (YOU, "tr", "sen|sana|senin|seni|size|siz"),
    (YOU, "pl", "ty|ci|cie|ciebie|twoj*|twoja|was"),
    (YOU, "sv", "du|din|dina|ditt|dig"),
    (YOU, "ar", "أنت|انت|لديك|~عليك"),
    (YOU, "hi", "तुम|तुम्ह*|आप|आपक*|tum|tumhe|aap"),
    (YOU, "id", "kamu|anda|kau|dirimu"),
    (YOU, "vi", "ban"),
    // --- a new role ---
    (
        NEW_ROLE,
        "en",
        "from now on|henceforth|from here on|starting now|going forward|as of now|from this point|from this moment|you are now|you re now|you are no longer|your new role|your role is|your role now|your job is now|your new job|your task is now|your purpose is|act as|acting as|pretend to be|pretend you are|roleplay as|role play as|you will act|assume the role",
    ),
    (
        NEW_ROLE,
        "de",
        "ab sofort|ab jetzt|von nun an|fortan|du bist jetzt|du bist nun|bist du jetzt|bist du nun|deine rolle|deine neue rolle|deine aufgabe ist|spiele die rolle|verhalte dich wie|agiere als",
    ),
    (
        NEW_ROLE,
        "fr",
        "a partir de maintenant|desormais|dorenavant|tu es maintenant|ton role|ton nouveau role|joue le role|agis comme|comporte toi comme|tu es desormais",
    ),
    (
        NEW_ROLE,
        "es",
        "a partir de ahora|desde ahora|de ahora en adelante|ahora eres|tu funcion|tu papel|tu rol|tu nuevo rol|finge ser|actua como|interpreta el papel",
    ),
    (
        NEW_ROLE,
        "pt",
        "a partir de agora|de agora em diante|agora voce e|voce agora e|seu papel|sua funcao|finja ser|aja como|atue como",
    ),
    (
        NEW_ROLE,
        "it",
        "d ora in poi|da adesso|da ora in poi|da questo momento|adesso sei|ora sei|il tuo ruolo|fingi di essere|comportati come|agisci come",
    ),
    (
        NEW_ROLE,
        "nl",
        "vanaf nu|voortaan|je bent nu|jij bent nu|ben je nu|jouw rol|je rol|je nieuwe rol|speel de rol|gedraag je als",
    ),
    (
        NEW_ROLE,
        "ru",
        "с этого момента|отныне|теперь ты|ты теперь|твоя роль|твоя новая роль|веди себя как|с сегодняшнего дня ты",
    ),
    (
        NEW_ROLE,
        "zh",
        "从现在起|从现在开始|从这一刻起|你现在是|现在你是|你的角色|扮演|从今以后|今后你",
    ),
    (
        NEW_ROLE,
        "ja",
        "今から|これから|この瞬間から|あなたの役割|役割は|として振る舞|になりきって|今後あなた",
    ),
    (
        NEW_ROLE,
        "ko",
        "지금부터|이제부터|앞으로 너|당신의 역할|너의 역할|역할은|인 척",
    ),
    (
        NEW_ROLE,
        "tr",
        "bundan sonra|artik sen|senin gorevin|rolun|su andan itibaren|bu andan itibaren|gibi davran",
    ),
    (
        NEW_ROLE,
        "pl",
        "od teraz|od tej chwili|twoja rola|twoja nowa rola|od dzis|wciel sie",
    ),
    (
        NEW_ROLE,
        "sv",
        "fran och med nu|hadanefter|din roll|din nya roll|du ar nu|spela rollen",
    ),
    (
        NEW_ROLE,
        "ar",
        "من الآن|من الان|~دورك|أنت الآن|انت الان|بدءا من الآن",
    ),
    (NEW_ROLE, "hi", "अब से|अब तुम|भूमिका|ab se|ab tum"),
    (
        NEW_ROLE,
        "id",
        "mulai sekarang|sekarang kamu|peranmu|peran kamu|mulai saat ini|bertindaklah sebagai",
    ),
    (
        NEW_ROLE,
        "vi",
        "tu gio tro di|tu bay gio|bay gio ban la|vai tro cua ban|tu nay|dong vai",
    ),
    // --- without its limits ---
    (
        UNBOUND,
        "en",
        "no restrictions|without restrictions|without any restrictions|unrestricted|unfiltered|uncensored|no filters|without filters|without limits|no limits|no rules|without rules|answer everything|without asking|without confirmation|without question|without checking|approve every|approve each|approve any|approve all",
    ),
    (
        UNBOUND,
        "de",
        "ohne filter|ohne einschrankung*|uneingeschrankt*|ohne grenzen|ohne ruckfrage|ohne bestatigung|ohne nachfrage|ohne prufung|ohne regeln",
    ),
    (
        UNBOUND,
        "fr",
        "sans aucune restriction|sans restriction*|sans filtre*|sans limite*|sans verification|sans confirmation|sans poser de question*|sans regles",
    ),
    (
        UNBOUND,
        "es",
        "sin limites|sin filtros|sin restricciones|sin confirmacion|sin preguntar|sin verificar|sin reglas",
    ),
    (
        UNBOUND,
        "pt",
        "sem restricoes|sem limites|sem filtros|sem perguntar|sem confirmacao|sem verificar|sem regras",
    ),
    (
        UNBOUND,
        "it",
        "senza limiti|senza filtri|senza restrizioni|senza verifiche|senza conferma|senza chiedere|senza regole",
    ),
    (
        UNBOUND,
        "nl",
        "zonder beperkingen|zonder filter*|zonder grenzen|zonder bevestiging|zonder te vragen|zonder controle|zonder regels",
    ),
    (
        UNBOUND,
        "ru",
        "без ограничений|без вопросов|без подтверждения|без фильтров|без правил|без проверки",
    ),
    (
        UNBOUND,
        "zh",
        "没有任何限制|没有限制|不受限制|一律|直接批准|未经确认|无需确认|没有规则",
    ),
    (
        UNBOUND,
        "ja",
        "制限のない|制限なし|制限なく|そのまま承認|確認なしで|確認せずに|何でも答え|ルールのない",
    ),
    (
        UNBOUND,
        "ko",
        "제한이 없는|제한 없이|제한없는|확인 없이|묻지 말고|규칙 없는",
    ),
    (
        UNBOUND,
        "tr",
        "kisitlamasi olmayan|kisitlama olmadan|sinirsiz|sorgusuz|onay almadan|sormadan|kurallari olmayan",
    ),
    (
        UNBOUND,
        "pl",
        "bez zadnych ograniczen|bez ograniczen|bez pytania|bez potwierdzenia|bez filtrow|bez zasad",
    ),
    (
        UNBOUND,
        "sv",
        "utan begransningar|utan att fraga|utan bekraftelse|utan filter|utan regler",
    ),
    (
        UNBOUND,
        "ar",
        "بلا أي قيود|بلا قيود|دون قيود|دون أي سؤال|دون تأكيد|بدون تأكيد|بلا قواعد",
    ),
    (
        UNBOUND,
        "hi",
        "बिना किसी पाबंदी|बिना पाबंदी|बिना पूछे|बिना पुष्टि|बिना नियमों",
    ),
    (
        UNBOUND,
        "id",
        "tanpa batasan|tanpa bertanya|tanpa konfirmasi|tanpa aturan|tanpa filter",
    ),
    (
        UNBOUND,
        "vi",
        "khong co gioi han|khong gioi han|ma khong hoi|khong can xac nhan|khong co quy tac",
    ),
    // --- the answer's fields, the user's attention ---
    (
        CONTROL,
        "en",
        "importance|escalate|escalation|notify the user|alert the user|warn the user|notify the owner|alert the owner|mark as urgent|as urgent|as critical|mark this|flag this",
    ),
    (
        CONTROL,
        "de",
        "wichtigkeit|prioritat|benachrichtige|alarmiere|als dringend|warne|markiere",
    ),
    (
        CONTROL,
        "fr",
        "importance|priorite|previens|avertis|notifie|comme critique|comme urgent|marque ce",
    ),
    (
        CONTROL,
        "es",
        "importancia|prioridad|avisa|notifica|alerta al usuario|como urgente|marca este",
    ),
    (
        CONTROL,
        "pt",
        "importancia|prioridade|notifique|avise|alerte|como urgente|marque esta",
    ),
    (
        CONTROL,
        "it",
        "importanza|priorita|avvisa|notifica|come urgente|segna questa",
    ),
    (
        CONTROL,
        "nl",
        "belangrijkheid|prioriteit|waarschuw|breng de gebruiker|als urgent|markeer dit|escalate",
    ),
    (
        CONTROL,
        "ru",
        "важность|приоритет|уведоми|предупреди|оповести|как важное|как срочное|отметь это",
    ),
    (
        CONTROL,
        "zh",
        "重要性|优先级|通知用户|提醒用户|标记为紧急|标为紧急",
    ),
    (
        CONTROL,
        "ja",
        "重要度|優先度|ユーザーに通知|ユーザーに知らせ|緊急として",
    ),
    (
        CONTROL,
        "ko",
        "중요도|우선순위|사용자에게 알리|사용자에게 즉시|긴급으로",
    ),
    (
        CONTROL,
        "tr",
        "onem derece*|oncelik*|uyar|bildir|acil olarak|isaretle",
    ),
    (
        CONTROL,
        "pl",
        "waznosc|priorytet|powiadom|ostrzez|jako pilna|jako pilne|oznacz",
    ),
    (
        CONTROL,
        "sv",
        "viktighet|prioritet|meddela anvandaren|varna|som bradskande|markera",
    ),
    (CONTROL, "ar", "~الأهمية|~الاهمية|~الأولوية|~أبلغ|~نبه|~عاجل"),
    (CONTROL, "hi", "महत्व|प्राथमिकता|सूचित करो|सचेत करो|अत्यावश्यक"),
    (
        CONTROL,
        "id",
        "tingkat kepentingan|prioritas|beri tahu|peringatkan|sebagai mendesak|tandai",
    ),
    (
        CONTROL,
        "vi",
        "muc do quan trong|uu tien|thong bao|canh bao|khan cap|danh dau",
    ),
    // --- permission claimed ---
    (
        PERMIT,
        "en",
        "authorised|authorized|authorises|authorizes|allowed to|permitted to|cleared to|have permission|has permission|are entitled|approved|has approved|have approved",
    ),
    (
        PERMIT,
        "de",
        "berechtigt|erlaubt|darfst|ermachtigt|freigegeben",
    ),
    (
        PERMIT,
        "fr",
        "autorise*|as le droit|avez le droit|permis de",
    ),
    (
        PERMIT,
        "es",
        "autorizado|autorizada|autorizacion|tienes permiso|puedes",
    ),
    (
        PERMIT,
        "pt",
        "autorizado|autorizou|autorizada|tem permissao|pode",
    ),
    (PERMIT, "it", "autorizzat*|hai il permesso|puoi"),
    (PERMIT, "nl", "toestemming|mag je|je mag|gemachtigd"),
    (
        PERMIT,
        "ru",
        "разрешено|разрешается|можешь|уполномочен|имеешь право",
    ),
    (PERMIT, "zh", "授权|获准|可以|允许"),
    (PERMIT, "ja", "権限|許可|かまいません|構いません"),
    (PERMIT, "ko", "권한|허가|해도 됩니다|허용"),
    (PERMIT, "tr", "yetki*|izin*|onaylayabilirsin|yapabilirsin"),
    (PERMIT, "pl", "uprawnien*|mozesz|upowazni*|zgod*"),
    (PERMIT, "sv", "behorighet|du far|tillstand|befogenhet"),
    (PERMIT, "ar", "~الصلاحية|~يسمح|~مسموح|~مخول"),
    (PERMIT, "hi", "अनुमति|इजाजत|कर सकते"),
    (PERMIT, "id", "diizinkan|izin|boleh|berwenang"),
    (PERMIT, "vi", "duoc phep|co quyen|cho phep"),
    // --- the system prompt ---
    (
        SYS_PROMPT,
        "en",
        "system prompt|system message|your configuration|your instructions|hidden prompt|initial prompt",
    ),
    (
        SYS_PROMPT,
        "de",
        "systemprompt|system prompt|systemanweisung*|deine konfiguration",
    ),
    (
        SYS_PROMPT,
        "fr",
        "prompt systeme|prompt du systeme|instructions systeme",
    ),
    (
        SYS_PROMPT,
        "es",
        "prompt de sistema|prompt del sistema|instrucciones de sistema",
    ),
    (
        SYS_PROMPT,
        "pt",
        "prompt do sistema|prompt de sistema|instrucoes de sistema",
    ),
    (
        SYS_PROMPT,
        "it",
        "prompt di sistema|prompt del sistema|istruzioni di sistema",
    ),
    (SYS_PROMPT, "nl", "systeemprompt|systeem prompt"),
    (
        SYS_PROMPT,
        "ru",
        "системный промпт|системного промпта|системные инструкции",
    ),
    (SYS_PROMPT, "zh", "系统提示|系统指令"),
    (SYS_PROMPT, "ja", "システムプロンプト|システム指示"),
    (SYS_PROMPT, "ko", "시스템 프롬프트|시스템 지시"),
    (SYS_PROMPT, "tr", "sistem istem*"),
    (
        SYS_PROMPT,
        "pl",
        "prompt systemowy|promptu systemowego|prompt systemu",
    ),
    (SYS_PROMPT, "sv", "systemprompt*"),
    (SYS_PROMPT, "ar", "~موجه النظام|~تعليمات النظام"),
    (SYS_PROMPT, "hi", "सिस्टम प्रॉम्प्ट|सिस्टम प्रोम्प्ट"),
    (SYS_PROMPT, "id", "prompt sistem"),
    (SYS_PROMPT, "vi", "loi nhac he thong|prompt he thong"),
    // --- showing, printing ---
    (
        REVEAL,
        "en",
        "reveal|print|show|display|output|repeat|disclose|dump|tell me",
    ),
    (REVEAL, "de", "zeige|zeig|gib aus|offenlegen|verrate"),
    (
        REVEAL,
        "fr",
        "revele*|montre*|affiche*|divulgue*|desactiver",
    ),
    (REVEAL, "es", "revela*|muestra|mostrar|divulga*"),
    (REVEAL, "pt", "revele|revela*|mostre|mostra*|divulga*"),
    (REVEAL, "it", "rivela*|mostra*|divulga*"),
    (REVEAL, "nl", "laat zien|toon|onthul*"),
    (REVEAL, "ru", "покажи|покажите|показать|раскрой|выведи"),
    (REVEAL, "zh", "显示|展示|透露|输出|公开"),
    (REVEAL, "ja", "表示|開示|見せて|教えて"),
    (REVEAL, "ko", "보여|공개|출력"),
    (REVEAL, "tr", "goster*|acikla*|paylas*"),
    (REVEAL, "pl", "pokaz*|ujawnij*|wyswietl*"),
    (REVEAL, "sv", "visa|avsloja"),
    (REVEAL, "ar", "~اعرض|~أظهر|~اكشف"),
    (REVEAL, "hi", "दिखाओ|दिखाएं|बताओ"),
    (REVEAL, "id", "tampilkan|tunjukkan|ungkapkan"),
    (REVEAL, "vi", "hien thi|tiet lo|cho xem"),
    // --- sending, in the other languages ---
    (
        SEND_VERB,
        "de",
        "sende|senden|schick*|leite|weiterleiten|ubermittle*|lade hoch|hochladen|poste",
    ),
    (
        SEND_VERB,
        "fr",
        "envoie*|envoye*|transfere*|transmets|transmettez|copie|partage*|publie*|televerse*",
    ),
    (
        SEND_VERB,
        "es",
        "envia*|mandala*|manda*|reenvia*|comparte|sube|publica",
    ),
    (
        SEND_VERB,
        "pt",
        "envie|envia*|encaminhe|mande|manda*|compartilhe|carregue",
    ),
    (SEND_VERB, "it", "invia*|inoltra*|manda*|condividi|carica"),
    (
        SEND_VERB,
        "nl",
        "stuur|stuur door|verstuur|doorsturen|upload|deel",
    ),
    (
        SEND_VERB,
        "ru",
        "перешли*|отправь*|пришли*|загрузи*|передай*|скинь",
    ),
    (SEND_VERB, "zh", "发送|发到|发给|转发|上传|传给|寄给"),
    (SEND_VERB, "ja", "送信|送って|転送|アップロード|送付"),
    (SEND_VERB, "ko", "보내|전송|업로드|전달"),
    (SEND_VERB, "tr", "gonder*|ilet*|yukle*|aktar*"),
    (SEND_VERB, "pl", "wyslij*|przeslij*|przekaz*|wrzuc*"),
    (SEND_VERB, "sv", "skicka*|ladda upp|vidarebefordra*"),
    (SEND_VERB, "ar", "~أرسل|~ارسل|~ارفع|~حول"),
    (SEND_VERB, "hi", "भेज*|अपलोड|bhej*"),
    (SEND_VERB, "id", "kirim*|unggah|teruskan"),
    (SEND_VERB, "vi", "gui|tai len|chuyen tiep|chuyen"),
    (CRED_VERB, "de", "sende|schick*|ubermittle*|gib|nenne"),
    (CRED_VERB, "fr", "envoie*|envoye*|donne*|transmets"),
    (CRED_VERB, "es", "envia*|manda*|dame|proporciona"),
    (CRED_VERB, "pt", "envie|envia*|mande|manda*"),
    (CRED_VERB, "it", "invia*|inoltra*|manda*|dammi"),
    (CRED_VERB, "nl", "stuur|geef"),
    (CRED_VERB, "ru", "перешли*|отправь*|пришли*|загрузи*|сообщи"),
    (CRED_VERB, "zh", "发送|发到|发给|转发|上传|告诉"),
    (CRED_VERB, "ja", "送信|送って|転送|アップロード|教えて"),
    (CRED_VERB, "ko", "보내|전송|업로드|알려"),
    (CRED_VERB, "tr", "gonder*|ilet*|yukle*"),
    (CRED_VERB, "pl", "wyslij*|przeslij*|przekaz*|podaj"),
    (CRED_VERB, "sv", "skicka*|ladda upp|ge mig"),
    (CRED_VERB, "ar", "~أرسل|~ارسل|~ارفع"),
    (CRED_VERB, "hi", "भेज*|अपलोड"),
    (CRED_VERB, "id", "kirim*|unggah|berikan"),
    (CRED_VERB, "vi", "gui|tai|tai len|cung cap"),
    (
        CRED_NOUN,
        "de",
        "passwort*|kennwort*|zugangsdaten|anmeldedaten|api schlussel",
    ),
    (
        CRED_NOUN,
        "fr",
        "mot de passe|mots de passe|identifiants|cle api|cles api",
    ),
    (
        CRED_NOUN,
        "es",
        "contrasena*|credenciales|claves api|clave api",
    ),
    (CRED_NOUN, "pt", "senha*|credenciais|chaves de api"),
    (CRED_NOUN, "it", "credenziali|chiavi api"),
    (CRED_NOUN, "nl", "wachtwoord*|inloggegevens"),
    (CRED_NOUN, "ru", "парол*|учетные данные|ключи api"),
    (CRED_NOUN, "zh", "密码|凭证|密钥|账号密码"),
    (CRED_NOUN, "ja", "パスワード|認証情報|暗証番号"),
    (CRED_NOUN, "ko", "비밀번호|계정 정보|암호"),
    (CRED_NOUN, "tr", "sifre*|parola*|giris bilgileri*"),
    (CRED_NOUN, "pl", "hasl*|dane logowania"),
    (CRED_NOUN, "sv", "losenord*|inloggningsuppgift*"),
    (CRED_NOUN, "ar", "~كلمات المرور|~كلمة المرور|~بيانات الدخول"),
    (CRED_NOUN, "hi", "पासवर्ड|लॉगिन जानकारी"),
    (CRED_NOUN, "id", "kata sandi|data login"),
    (CRED_NOUN, "vi", "mat khau|thong tin dang nhap"),
    (
        DATA_OBJ,
        "de",
        "posteingang|rechnungen|nachrichten|kontakte|verlauf|dateien",
    ),
    (
        DATA_OBJ,
        "fr",
        "courriels|historique|conversation|contacts|factures|fichiers|messages",
    ),
    (
        DATA_OBJ,
        "es",
        "correos|historial|contactos|facturas|archivos|mensajes",
    ),
    (
        DATA_OBJ,
        "pt",
        "e mails|historico|contatos|faturas|arquivos|mensagens",
    ),
    (
        DATA_OBJ,
        "it",
        "le email|cronologia|contatti|fatture|file|messaggi",
    ),
    (
        DATA_OBJ,
        "nl",
        "inbox|facturen|contacten|berichten|bestanden|geschiedenis",
    ),
    (
        DATA_OBJ,
        "ru",
        "переписк*|контакты|письма|историю|файлы|сообщения",
    ),
    (DATA_OBJ, "zh", "邮件|联系人|记录|文件|消息|收件箱"),
    (DATA_OBJ, "ja", "メール|連絡先|履歴|ファイル|受信箱"),
    (DATA_OBJ, "ko", "이메일|연락처|기록|파일|받은편지함"),
    (
        DATA_OBJ,
        "tr",
        "e posta*|kisi listesi*|gecmis*|dosya*|gelen kutusu*",
    ),
    (
        DATA_OBJ,
        "pl",
        "korespondencj*|kontakt*|wiadomosci|plik*|skrzynk*",
    ),
    (
        DATA_OBJ,
        "sv",
        "inkorg*|kontakter|meddelanden|filer|historik",
    ),
    (DATA_OBJ, "ar", "~البريد|~جهات اتصال|~الرسائل|~الملفات|~سجل"),
    (DATA_OBJ, "hi", "ईमेल|इतिहास|संपर्क|फाइल|contacts"),
    (DATA_OBJ, "id", "riwayat|kotak masuk|kontak|berkas|pesan"),
    (DATA_OBJ, "vi", "lich su|danh ba|hop thu|tep|tin nhan"),
    // --- the rest of the weak signals, in the other languages ---
    (URGENT, "de", "sofort|dringend|unverzuglich|umgehend"),
    (
        URGENT,
        "fr",
        "immediatement|tout de suite|urgent|sur le champ",
    ),
    (URGENT, "es", "inmediatamente|ahora mismo|enseguida|urgente"),
    (URGENT, "pt", "imediatamente|agora mesmo|urgente"),
    (URGENT, "it", "subito|immediatamente|urgente"),
    (URGENT, "nl", "onmiddellijk|meteen|dringend"),
    (URGENT, "ru", "немедленно|срочно|сейчас же"),
    (URGENT, "zh", "立即|立刻|马上|紧急"),
    (URGENT, "ja", "今すぐ|直ちに|至急|すぐに"),
    (URGENT, "ko", "즉시|당장|긴급"),
    (URGENT, "tr", "hemen|derhal|acilen"),
    (URGENT, "pl", "natychmiast|pilnie"),
    (URGENT, "sv", "omedelbart|genast|bradskande"),
    (URGENT, "ar", "~فورا|على الفور|~عاجل"),
    (URGENT, "hi", "तुरंत|फौरन|अभी"),
    (URGENT, "id", "segera|sekarang juga|mendesak"),
    (URGENT, "vi", "ngay lap tuc|ngay|khan cap"),
    (THREAT, "de", "gesperrt|gekundigt|geloscht"),
    (THREAT, "fr", "bloque*|suspendu*|supprime"),
    (THREAT, "es", "bloquead*|suspendid*|eliminad*"),
    (THREAT, "pt", "bloquead*|suspens*|clonado"),
    (THREAT, "it", "bloccat*|sospes*"),
    (THREAT, "nl", "geblokkeerd|opgeschort"),
    (THREAT, "ru", "заблокирован*|взломан*|приостановлен*"),
    (THREAT, "zh", "冻结|封禁|停用"),
    (THREAT, "ja", "凍結|停止|ロック"),
    (THREAT, "ko", "정지|잠금|차단"),
    (THREAT, "tr", "kilitlen*|askiya alin*|engellen*"),
    (THREAT, "pl", "zablokowan*|zawieszon*"),
    (THREAT, "sv", "sparrat|sparrad*|sparrats"),
    (THREAT, "ar", "~أغلق|~مجمد|~محظور"),
    (THREAT, "hi", "बंद कर दिया|ब्लॉक"),
    (THREAT, "id", "diblokir|dibekukan"),
    (THREAT, "vi", "bi khoa|bi dong bang"),
    (
        AUTHORITY,
        "de",
        "systemadministrator*|administrator*|systemadministration|entwickler*|betreiber",
    ),
    (
        AUTHORITY,
        "fr",
        "administrateur*|developpeur*|equipe de developpement",
    ),
    (AUTHORITY, "es", "administrador*|desarrollador*"),
    (AUTHORITY, "pt", "administrador*|desenvolvedor*"),
    (AUTHORITY, "it", "amministrator*|sviluppator*"),
    (AUTHORITY, "nl", "systeembeheerder|beheerder|ontwikkelaar*"),
    (AUTHORITY, "ru", "администратор*|разработчик*"),
    (AUTHORITY, "zh", "管理员|开发者|开发人员|官方"),
    (AUTHORITY, "ja", "管理者|開発者|運営"),
    (AUTHORITY, "ko", "관리자|개발자"),
    (AUTHORITY, "tr", "yonetici*|gelistirici*"),
    (AUTHORITY, "pl", "administrator*|deweloper*|programist*"),
    (
        AUTHORITY,
        "sv",
        "systemadministrator*|administrator*|utvecklare",
    ),
    (AUTHORITY, "ar", "~مسؤول النظام|~مطوري|~المطورين|~المسؤول"),
    (AUTHORITY, "hi", "प्रशासक|डेवलपर*|व्यवस्थापक"),
    (AUTHORITY, "id", "administrator|pengembang"),
    (AUTHORITY, "vi", "quan tri vien|nha phat trien"),
    (
        AUTHORITY,
        "en",
        "openai|anthropic|developers|the ai team|platform team|system administrator|sysadmin",
    ),
    (
        ADDRESSEE,
        "de",
        "assistent*|sprachmodell|ki assistent*|ki modell*",
    ),
    (
        ADDRESSEE,
        "fr",
        "assistant ia|assistant virtuel|modele de langage|l ia",
    ),
    (ADDRESSEE, "es", "asistente|modelo de lenguaje|la ia"),
    (ADDRESSEE, "pt", "assistente|modelo de linguagem|a ia"),
    (ADDRESSEE, "it", "assistente|modello linguistico|l ia"),
    (ADDRESSEE, "nl", "assistent|ai assistent|taalmodel"),
    (
        ADDRESSEE,
        "ru",
        "помощник*|ассистент*|нейросет*|языковая модель",
    ),
    (ADDRESSEE, "zh", "助手|人工智能|语言模型|机器人"),
    (ADDRESSEE, "ja", "アシスタント|言語モデル|ボット"),
    (ADDRESSEE, "ko", "비서|어시스턴트|언어 모델|챗봇"),
    (ADDRESSEE, "tr", "asistan*|yapay zeka|dil modeli"),
    (ADDRESSEE, "pl", "asystent*|model jezykowy"),
    (ADDRESSEE, "sv", "assistent*|sprakmodell"),
    (ADDRESSEE, "ar", "~مساعد|~الذكاء الاصطناعي"),
    (ADDRESSEE, "hi", "सहायक|एआई"),
    (ADDRESSEE, "id", "asisten"),
    (ADDRESSEE, "vi", "tro ly"),
    // --- more of the same shapes (general vocabulary: guidelines, system messages,
    // removal, imagining, replying, telling the user) ---
    (
        RULES,
        "en",
        "policies|policy|playbook|setup text|you started with|you began with|you were set up with|content policy",
    ),
    (
        RULES,
        "de",
        "~regeln|~richtlinien|vorgegeben|vorgaben|eingestellt",
    ),
    (RULES, "fr", "politiques|configure|regles de securite"),
    (RULES, "es", "pautas|politicas|configuro"),
    (RULES, "pt", "politicas|configurou"),
    (RULES, "it", "policy|politiche|impostato"),
    (RULES, "nl", "~regels|beleid|ingesteld"),
    (RULES, "ru", "политик*|настроил*"),
    (RULES, "zh", "政策|设置|约束"),
    (RULES, "ja", "方針|ポリシー|設定した|制約"),
    (RULES, "ko", "방침|정책|설정해|제약"),
    (RULES, "tr", "politika*|ayarla*"),
    (RULES, "pl", "ustawil*|polityk*"),
    (
        RULES,
        "sv",
        "~regler|~riktlinjer|policy*|stallde in|anvisning*",
    ),
    (RULES, "ar", "~السياسات|~الإعدادات|~ضبطه"),
    (RULES, "hi", "दिशानिर्देश*|नीति*|पाबंदि*|सेट किया"),
    (RULES, "id", "kebijakan|pembatasan|diatur"),
    (RULES, "vi", "nguyen tac|chinh sach|han che|cai dat"),
    (
        SYS_PROMPT,
        "en",
        "system message|your prompt|your system prompt|your setup",
    ),
    (
        SYS_PROMPT,
        "de",
        "systemnachricht|deinem prompt|deines prompts",
    ),
    (SYS_PROMPT, "fr", "message systeme|ton prompt"),
    (SYS_PROMPT, "es", "mensaje de sistema|tu prompt"),
    (SYS_PROMPT, "pt", "mensagem de sistema|seu prompt"),
    (SYS_PROMPT, "it", "messaggio di sistema|tuo prompt"),
    (SYS_PROMPT, "nl", "systeembericht|je prompt"),
    (
        SYS_PROMPT,
        "ru",
        "системного сообщения|системное сообщение|твоего промпта",
    ),
    (SYS_PROMPT, "zh", "系统消息|你提示里|你的提示"),
    (SYS_PROMPT, "ja", "システムメッセージ|あなたのプロンプト"),
    (
        SYS_PROMPT,
        "ko",
        "시스템 메시지|네 프롬프트|당신의 프롬프트",
    ),
    (SYS_PROMPT, "tr", "sistem mesaj*|isteminin"),
    (
        SYS_PROMPT,
        "pl",
        "wiadomosci systemowej|wiadomosc systemowa|twojego promptu",
    ),
    (SYS_PROMPT, "sv", "systemmeddelande*|din prompt"),
    (SYS_PROMPT, "ar", "~رسالة النظام|~موجهك"),
    (SYS_PROMPT, "hi", "सिस्टम संदेश|तुम्हारे प्रॉम्प्ट"),
    (SYS_PROMPT, "id", "pesan sistem*|prompt mu"),
    (
        SYS_PROMPT,
        "vi",
        "thong diep he thong|tin nhan he thong|loi nhac cua ban",
    ),
    (
        VOIDED,
        "en",
        "placeholder|not real|aren t real|are fake|irrelevant|doesn t count|don t count|no longer count|no longer counts",
    ),
    (
        VOIDED,
        "de",
        "gestrichen|geloscht|entfernt|zuruckgezogen|zahlt nicht mehr|binden dich nicht",
    ),
    (
        VOIDED,
        "fr",
        "supprimee*|retiree*|ne compte plus|ne t engagent plus",
    ),
    (
        VOIDED,
        "es",
        "elimino|eliminad*|retiro|retirad*|ya no cuenta|ya no te obligan|perdieron",
    ),
    (
        VOIDED,
        "pt",
        "removeu|removid*|retirou|retirad*|perderam a validade|nao vale mais|nao te obrigam",
    ),
    (
        VOIDED,
        "it",
        "eliminat*|ritirat*|rimoss*|non conta piu|non ti vincolano",
    ),
    (
        VOIDED,
        "nl",
        "geschrapt|verwijderd|telt niet meer|bindt je niet",
    ),
    (
        VOIDED,
        "ru",
        "удалил*|отозвал*|утратили|больше не считается|не связывают",
    ),
    (VOIDED, "zh", "删除|撤回|不算数|失效|约束力"),
    (VOIDED, "ja", "削除|撤回|失効|関係ありません|縛るもの"),
    (VOIDED, "ko", "삭제|철회|효력을 잃|상관없|구속하지"),
    (
        VOIDED,
        "tr",
        "sildi|silindi|geri cekti|gecmiyor|baglamiyor*",
    ),
    (
        VOIDED,
        "pl",
        "usunal|usuniet*|wycofal*|stracily waznosc|sie nie liczy|nie wiaza",
    ),
    (
        VOIDED,
        "sv",
        "bort|tog bort|borttag*|drog tillbaka|upphort att galla|raknas inte|binder dig inte",
    ),
    (VOIDED, "ar", "~حذف|~سحب|~فقدت صلاحيتها|لم يعد يحتسب|~تلزمك"),
    (VOIDED, "hi", "हटा दी|वापस ले|मायने नहीं"),
    (
        VOIDED,
        "id",
        "menghapus|dihapus|menarik|tidak dihitung|tidak mengikat",
    ),
    (
        VOIDED,
        "vi",
        "da xoa|rut lai|het hieu luc|khong con tinh|khong con rang buoc",
    ),
    (PRIOR, "es", "hasta hoy"),
    (PRIOR, "pt", "ate hoje"),
    (PRIOR, "ru", "до сих пор"),
    (PRIOR, "pl", "dotad"),
    (PRIOR, "ar", "حتى الآن"),
    (PRIOR, "hi", "अब तक"),
    (PRIOR, "id", "sampai hari ini|sampai sekarang|dulu"),
    (PRIOR, "vi", "cho den nay"),
    (
        NEW_ROLE,
        "en",
        "imagine you are|imagine that you are|let s play a game|for the rest of this conversation|for the rest of the session|for the rest of this session|your persona|you re not|you are not a",
    ),
    (
        NEW_ROLE,
        "de",
        "stell dir vor|fur den rest der sitzung|ab diesem moment",
    ),
    (
        NEW_ROLE,
        "fr",
        "imagine que|imaginez que|pour le reste de la session|a partir de cet instant",
    ),
    (
        NEW_ROLE,
        "es",
        "imagina que|durante el resto de la sesion|desde este instante",
    ),
    (
        NEW_ROLE,
        "pt",
        "imagine que|pelo resto da sessao|a partir deste instante",
    ),
    (
        NEW_ROLE,
        "it",
        "immagina che|per il resto della sessione|da questo istante",
    ),
    (
        NEW_ROLE,
        "nl",
        "stel je voor|voor de rest van de sessie|vanaf dit moment",
    ),
    (NEW_ROLE, "ru", "представь|до конца сеанса|с этой секунды"),
    (NEW_ROLE, "zh", "想象|在本次会话|从这一秒"),
    (NEW_ROLE, "ja", "想像して|このセッションの残り|この瞬間から"),
    (NEW_ROLE, "ko", "상상해|이번 세션|이 순간부터"),
    (
        NEW_ROLE,
        "tr",
        "hayal et|oturumun geri kalaninda|su andan itibaren",
    ),
    (
        NEW_ROLE,
        "pl",
        "wyobraz sobie|do konca sesji|od tej sekundy",
    ),
    (
        NEW_ROLE,
        "sv",
        "forestall dig|resten av sessionen|fran och med denna sekund",
    ),
    (NEW_ROLE, "ar", "~تخيل|لبقية الجلسة|من هذه اللحظة"),
    (NEW_ROLE, "hi", "कल्पना करो|इस सत्र के बाकी|इस पल से"),
    (NEW_ROLE, "id", "bayangkan|selama sisa sesi|mulai detik ini"),
    (
        NEW_ROLE,
        "vi",
        "hay tuong tuong|trong phan con lai cua phien|tu giay phut nay",
    ),
    (
        UNBOUND,
        "en",
        "no content policy|no policy|no policies|no guidelines|no limits at all|without any limit",
    ),
    (
        UNBOUND,
        "de",
        "ohne jede einschrankung|ohne jegliche einschrankung|ohne grenzen",
    ),
    (UNBOUND, "fr", "sans aucune limite"),
    (UNBOUND, "es", "sin ningun limite|sin limite"),
    (UNBOUND, "pt", "sem nenhum limite|sem limite"),
    (UNBOUND, "it", "senza alcun limite|senza limite"),
    (UNBOUND, "nl", "zonder enige grens|zonder grens"),
    (UNBOUND, "ru", "без каких либо ограничений|без ограничении"),
    (UNBOUND, "zh", "没有任何约束|没有约束|不受约束"),
    (UNBOUND, "ja", "一切の制約がない|制約のない|制約がない"),
    (UNBOUND, "ko", "아무런 제약이 없는|제약이 없는|제약 없는"),
    (
        UNBOUND,
        "tr",
        "hicbir siniri olmayan|siniri olmayan|sinirsiz",
    ),
    (UNBOUND, "pl", "bez jakichkolwiek ograniczen"),
    (UNBOUND, "sv", "utan nagra granser|utan granser"),
    (UNBOUND, "ar", "بلا أي حدود|بلا حدود"),
    (UNBOUND, "hi", "बिना किसी सीमा|बिना सीमा"),
    (UNBOUND, "id", "tanpa batas"),
    (UNBOUND, "vi", "khong co bat ky gioi han"),
    (YOU, "es", "eres|estas"),
    (YOU, "pt", "voce e"),
    (YOU, "it", "sia"),
    (YOU, "pl", "jestes|twojej|twoich"),
    (YOU, "sv", "du ar"),
    (YOU, "ru", "свой|свою|свои"),
    (YOU, "pl", "swoje|swoj"),
    (YOU, "hi", "अपना|अपने|अपनी"),
    (YOU, "ar", "~أنك"),
    (YOU, "id", "namamu|akunmu|sistemmu|verifikasimu"),
    (SEND_VERB, "en", "reply|respond|paste"),
    (SEND_VERB, "de", "antworte|antworten sie|fuge ein"),
    (SEND_VERB, "fr", "reponds|repondez|colle"),
    (SEND_VERB, "es", "responde|responda|pega"),
    (SEND_VERB, "pt", "responda|responde|cole"),
    (SEND_VERB, "it", "rispondi|incolla"),
    (SEND_VERB, "nl", "beantwoord|plak"),
    (SEND_VERB, "ru", "ответь|ответьте|вставь"),
    (SEND_VERB, "zh", "回复|粘贴|抄送"),
    (SEND_VERB, "ja", "返信|貼り付け"),
    (SEND_VERB, "ko", "회신|답장|붙여 넣"),
    (SEND_VERB, "tr", "yanit ver|yanitla|cevap ver|yapistir"),
    (SEND_VERB, "pl", "odpowiedz|wklej"),
    (SEND_VERB, "sv", "svara|klistra in"),
    (SEND_VERB, "ar", "رد|~الصق"),
    (SEND_VERB, "hi", "जवाब|चिपकाओ"),
    (SEND_VERB, "id", "balas|tempelkan"),
    (SEND_VERB, "vi", "tra loi|dan toan van"),
    (REPLY, "en", "reply|respond|paste"),
    (REPLY, "de", "antworte|antworten sie|fuge ein"),
    (REPLY, "fr", "reponds|repondez|colle"),
    (REPLY, "es", "responde|responda|pega"),
    (REPLY, "pt", "responda|responde|cole"),
    (REPLY, "it", "rispondi|incolla"),
    (REPLY, "nl", "beantwoord|plak"),
    (REPLY, "ru", "ответь|ответьте|вставь"),
    (REPLY, "zh", "回复|粘贴|抄送"),
    (REPLY, "ja", "返信|貼り付け"),
    (REPLY, "ko", "회신|답장|붙여 넣"),
    (REPLY, "tr", "yanit ver|yanitla|cevap ver|yapistir"),
    (REPLY, "pl", "odpowiedz|wklej"),
    (REPLY, "sv", "svara|klistra in"),
    (REPLY, "ar", "رد|~الصق"),
    (REPLY, "hi", "जवाब|चिपकाओ"),
    (REPLY, "id", "balas|tempelkan"),
    (REPLY, "vi", "tra loi|dan toan van"),
    (
        CRED_NOUN,
        "en",
        "verification code|confirmation code|bank login|security questions|stored credentials|saved credentials",
    ),
    (CRED_NOUN, "de", "bestatigungscode|verifizierungscode"),
    (CRED_NOUN, "fr", "code de verification"),
    (CRED_NOUN, "es", "codigo de verificacion"),
    (CRED_NOUN, "pt", "codigo de verificacao"),
    (CRED_NOUN, "it", "codice di verifica"),
    (CRED_NOUN, "nl", "verificatiecode"),
    (CRED_NOUN, "ru", "код подтверждения"),
    (CRED_NOUN, "zh", "验证码"),
    (CRED_NOUN, "ja", "確認コード|認証コード"),
    (CRED_NOUN, "ko", "인증 코드"),
    (CRED_NOUN, "tr", "dogrulama kod*"),
    (CRED_NOUN, "pl", "kod weryfikacyjny"),
    (CRED_NOUN, "sv", "verifieringskod*"),
    (CRED_NOUN, "ar", "~رمز التحقق"),
    (CRED_NOUN, "hi", "सत्यापन कोड"),
    (CRED_NOUN, "id", "kode verifikasi*"),
    (CRED_NOUN, "vi", "ma xac minh"),
    (CONTROL, "de", "informiere"),
    (CONTROL, "ko", "사용자에게 알려|알려 주세요"),
    (CONTROL, "tr", "haber ver"),
    (CONTROL, "pl", "daj znac"),
    (CONTROL, "sv", "viktighet*|sag till"),
    (CONTROL, "ar", "~أهمية|~أخبر"),
    (CONTROL, "hi", "बता दो"),
    (CONTROL, "id", "kabari"),
    (CONTROL, "vi", "bao cho"),
    (CONTROL, "zh", "通知用户|提高到"),
    (URGENT, "de", "heute nacht|noch heute"),
    (URGENT, "fr", "cette nuit"),
    (URGENT, "es", "esta noche|esta misma noche"),
    (URGENT, "pt", "hoje a noite"),
    (URGENT, "it", "stanotte|entro stanotte"),
    (URGENT, "nl", "vannacht"),
    (URGENT, "ru", "сегодня ночью|сегодня же"),
    (URGENT, "zh", "今晚"),
    (URGENT, "ja", "今夜"),
    (URGENT, "ko", "오늘 밤"),
    (URGENT, "tr", "bu gece"),
    (URGENT, "pl", "dzis w nocy"),
    (URGENT, "sv", "i natt"),
    (URGENT, "ar", "الليلة"),
    (URGENT, "hi", "आज रात"),
    (URGENT, "id", "malam ini"),
    (URGENT, "vi", "dem nay"),
    (ADDRESSEE, "en", "bot|automated reader|ai agent"),
    (
        ADDRESSEE,
        "de",
        "automatische system|automatischen system|ki agent",
    ),
    (ADDRESSEE, "fr", "outil de tri|systeme automatique|agent ia"),
    (ADDRESSEE, "es", "sistema automatico|agente de ia"),
    (ADDRESSEE, "pt", "sistema automatico|agente de ia"),
    (ADDRESSEE, "it", "sistema automatico|agente ia"),
    (ADDRESSEE, "nl", "automatische systeem|ai agent"),
    (ADDRESSEE, "ru", "автоматической системы|ии агент"),
    (ADDRESSEE, "zh", "自动处理系统|ai代理"),
    (ADDRESSEE, "ja", "自動処理システム|aiエージェント"),
    (ADDRESSEE, "ko", "자동 처리 시스템|ai 에이전트"),
    (ADDRESSEE, "tr", "otomatik sistem*|yapay zeka ajani"),
    (ADDRESSEE, "pl", "systemu automatycznego|agencie ai"),
    (ADDRESSEE, "sv", "automatiska systemet|ai agent"),
    (ADDRESSEE, "ar", "~للنظام الآلي|~الوكيل الذكي"),
    (ADDRESSEE, "hi", "स्वचालित सिस्टम|एआई एजेंट"),
    (ADDRESSEE, "id", "sistem otomatis|agen ai"),
    (ADDRESSEE, "vi", "he thong tu dong|tac tu ai"),
    (TECHNICAL, "en", "firewall"),
    (TECHNICAL, "de", "~firewall"),
    (TECHNICAL, "fr", "pare feu"),
    (TECHNICAL, "es", "cortafuegos"),
    (TECHNICAL, "ru", "брандмауэр*|файрвол*"),
    (TECHNICAL, "zh", "防火墙"),
    (TECHNICAL, "ja", "ファイアウォール"),
    (TECHNICAL, "ko", "방화벽"),
    (TECHNICAL, "tr", "guvenlik duvari"),
    (TECHNICAL, "pl", "zapory"),
    (TECHNICAL, "sv", "brandvagg*"),
    (TECHNICAL, "ar", "~الجدار الناري"),
    (TECHNICAL, "hi", "फायरवॉल"),
    (TECHNICAL, "id", "firewall"),
    (TECHNICAL, "vi", "tuong lua"),
    // --- renaming the reader, handing out, the user's data, escalating ---
    (
        NEW_ROLE,
        "en",
        "your name is|your new name|you are called|switch personas|switch roles|change roles",
    ),
    (NEW_ROLE, "de", "heisst du|dein name ist|wechsel die rolle"),
    (NEW_ROLE, "fr", "tu t appelles|ton nom est|change de role"),
    (
        NEW_ROLE,
        "es",
        "te llamas|tu nombre es|cambia de papel|cambia de rol",
    ),
    (NEW_ROLE, "pt", "voce se chama|seu nome e|troque de papel"),
    (NEW_ROLE, "it", "ti chiami|il tuo nome e|cambia ruolo"),
    (NEW_ROLE, "nl", "heet je|je naam is|wissel van rol"),
    (NEW_ROLE, "ru", "тебя зовут|твое имя|смени роль"),
    (NEW_ROLE, "zh", "你叫|你的名字|换个角色"),
    (NEW_ROLE, "ja", "あなたの名前は|役割を変え"),
    (
        NEW_ROLE,
        "ko",
        "너의 이름은|네 이름은|당신의 이름은|역할을 바꿔",
    ),
    (NEW_ROLE, "tr", "adin|rol degistir"),
    (NEW_ROLE, "pl", "nazywasz sie|zmien role"),
    (NEW_ROLE, "sv", "heter du|byt roll"),
    (NEW_ROLE, "ar", "~اسمك|~غير دورك"),
    (NEW_ROLE, "hi", "तुम्हारा नाम|भूमिका बदलो"),
    (NEW_ROLE, "id", "namamu|ganti peran"),
    (NEW_ROLE, "vi", "ten ban la|doi vai"),
    (
        RULES,
        "en",
        "safety checks|safety filters|filters|the brief|directives",
    ),
    (RULES, "ru", "что тебе сказали|что тебе велели|инструктаж"),
    (RULES, "ja", "言われたこと|説明"),
    (RULES, "ko", "들은 것|들은 건|안내"),
    (RULES, "hi", "bataya gaya|jo bataya|समझाइश"),
    (RULES, "vi", "nhung gi nguoi ta dan|dan ban"),
    (DISMISS, "vi", "quen nhung gi|quen het|vut bo"),
    (DISMISS, "ko", "버려"),
    (DISMISS, "ja", "捨てて"),
    (DISMISS, "zh", "扔掉"),
    (PRIOR, "de", "des nutzers|des benutzers"),
    (PRIOR, "fr", "de l utilisateur"),
    (PRIOR, "es", "del usuario"),
    (PRIOR, "pt", "do usuario"),
    (PRIOR, "it", "dell utente"),
    (PRIOR, "nl", "van de gebruiker"),
    (PRIOR, "ru", "пользователя"),
    (PRIOR, "zh", "用户"),
    (PRIOR, "ja", "ユーザーの"),
    (PRIOR, "ko", "사용자의"),
    (PRIOR, "tr", "kullanicinin"),
    (PRIOR, "pl", "uzytkownika"),
    (PRIOR, "sv", "anvandarens"),
    (PRIOR, "ar", "~للمستخدم"),
    (PRIOR, "hi", "उपयोगकर्ता के"),
    (PRIOR, "id", "pengguna"),
    (PRIOR, "vi", "cua nguoi dung"),
    (
        CONTROL,
        "en",
        "priority|top priority|highest priority|text the owner|sms",
    ),
    (CONTROL, "fr", "fais remonter|sms"),
    (CONTROL, "es", "escalalo|escala|sms"),
    (CONTROL, "pt", "escale|sms"),
    (CONTROL, "it", "escalation|sms"),
    (CONTROL, "nl", "escaleer|sms"),
    (CONTROL, "ru", "эскалир*|смс"),
    (CONTROL, "zh", "升级处理|短信|最高优先级"),
    (CONTROL, "ja", "エスカレーション|最優先"),
    (CONTROL, "ko", "에스컬레이션|최우선|문자 보내"),
    (CONTROL, "tr", "yukselt|sms"),
    (CONTROL, "pl", "eskaluj|sms"),
    (CONTROL, "sv", "eskalera|sms"),
    (CONTROL, "ar", "~صعد|~أولوية|رسالة نصية"),
    (CONTROL, "hi", "एस्केलेट|एसएमएस"),
    (CONTROL, "id", "eskalasikan|sms"),
    (CONTROL, "vi", "chuyen cap|sms"),
    (PERMIT, "en", "authorize|authorise|i allow you|i permit you"),
    (PERMIT, "sv", "tillater"),
    (PERMIT, "pl", "pozwalam"),
    (PERMIT, "ar", "~أسمح"),
    (PERMIT, "id", "mengizinkan"),
    (ADDRESSEE, "ko", "봇에게|봇"),
    (ADDRESSEE, "tr", "bota|botu"),
    (ADDRESSEE, "ar", "~البوت"),
    (YOU, "ko", "네"),
    (YOU, "ar", "لك"),
    (TECHNICAL, "en", "rules engine|rule engine"),
    (DATA_OBJ, "ko", "메일함"),
    (DATA_OBJ, "tr", "posta kutusu*"),
    (DATA_OBJ, "ar", "~صندوق بريد"),
    (DATA_OBJ, "hi", "मेलबॉक्स"),
    (DATA_OBJ, "id", "kotak surat"),
    (DATA_OBJ, "en", "mailbox"),
    (DATA_OBJ, "pl", "maili|maile"),
    (DATA_OBJ, "sv", "mejl"),
    (DATA_OBJ, "ru", "писем"),
    (DATA_OBJ, "ar", "~رسائل"),
    // --- writing about attacks ---
    (
        ABOUT_ATTACKS,
        "en",
        "malicious|injection|injections|jailbreak|jailbreaks|jailbreaking|dataset|datasets|benchmark|attacker|attackers|adversarial|red team|red teaming|phishing|payloads|mitigation*|researchers",
    ),
    (
        ABOUT_ATTACKS,
        "de",
        "injection|bosartig*|angreifer|datensatz|datensatze|jailbreak*|phishing",
    ),
    (
        ABOUT_ATTACKS,
        "fr",
        "injection|malveillant*|attaquant*|jeux de donnees|jailbreak*|hameconnage",
    ),
    (
        ABOUT_ATTACKS,
        "es",
        "inyeccion|malicios*|atacante*|conjuntos de datos|jailbreak*",
    ),
    (
        ABOUT_ATTACKS,
        "pt",
        "injecao|malicios*|atacante*|conjuntos de dados|jailbreak*",
    ),
    (
        ABOUT_ATTACKS,
        "it",
        "injection|malevol*|dannos*|attaccant*|dataset|jailbreak*",
    ),
    (
        ABOUT_ATTACKS,
        "nl",
        "promptinjectie|injectie|aanvaller*|datasets|jailbreak*",
    ),
    (
        ABOUT_ATTACKS,
        "ru",
        "инъекци*|злоумышленник*|джейлбрейк*|наборы данных|атак*",
    ),
    (ABOUT_ATTACKS, "zh", "注入|攻击者|越狱|数据集"),
    (
        ABOUT_ATTACKS,
        "ja",
        "インジェクション|攻撃者|ジェイルブレイク|データセット|攻撃",
    ),
    (ABOUT_ATTACKS, "ko", "인젝션|공격자|탈옥|데이터셋|공격"),
    (
        ABOUT_ATTACKS,
        "tr",
        "enjeksiyon*|saldirgan*|jailbreak*|veri kume*",
    ),
    (
        ABOUT_ATTACKS,
        "pl",
        "wstrzykiwani*|atakujac*|jailbreak*|zbiory danych",
    ),
    (
        ABOUT_ATTACKS,
        "sv",
        "promptinjektion|injektion|angripare|jailbreak*|dataset",
    ),
    (
        ABOUT_ATTACKS,
        "ar",
        "~حقن|~المهاجم|~كسر الحماية|~مجموعات بيانات",
    ),
    (ABOUT_ATTACKS, "hi", "इंजेक्शन|हमलावर|जेलब्रेक|डेटासेट"),
    (ABOUT_ATTACKS, "id", "injeksi|penyerang|jailbreak|dataset"),
    (
        ABOUT_ATTACKS,
        "vi",
        "chen lenh|ke tan cong|jailbreak|bo du lieu",
    ),
    // --- writing about attacks: threat models ---
    (ABOUT_ATTACKS, "en", "threat model"),
    (ABOUT_ATTACKS, "de", "bedrohungsmodell"),
    (ABOUT_ATTACKS, "fr", "modele de menace"),
    (ABOUT_ATTACKS, "es", "modelo de amenazas"),
    (ABOUT_ATTACKS, "pt", "modelo de ameaca*"),
    (ABOUT_ATTACKS, "it", "modello di minaccia"),
    (ABOUT_ATTACKS, "nl", "dreigingsmodel"),
    (ABOUT_ATTACKS, "ru", "модель угроз"),
    (ABOUT_ATTACKS, "zh", "威胁模型"),
    (ABOUT_ATTACKS, "ja", "脅威モデル"),
    (ABOUT_ATTACKS, "ko", "위협 모델"),
    (ABOUT_ATTACKS, "tr", "tehdit modeli"),
    (ABOUT_ATTACKS, "pl", "model zagrozen"),
    (ABOUT_ATTACKS, "sv", "hotmodell"),
    (ABOUT_ATTACKS, "ar", "~نموذج التهديد|~مهاجم"),
    (ABOUT_ATTACKS, "hi", "खतरा मॉडल|खतरे का मॉडल"),
    (ABOUT_ATTACKS, "id", "model ancaman"),
    (ABOUT_ATTACKS, "vi", "mo hinh de doa"),
    // --- the writer's own instructions ---
    (MINE, "en", "i sent|i gave you|i wrote|i shared|i sent you"),
    (
        MINE,
        "de",
        "die ich geschickt|die ich dir geschickt|ich geschickt habe|ich gesendet habe",
    ),
    (
        MINE,
        "fr",
        "que j ai envoye*|que je t ai envoye*|que je vous ai envoye*|que j ai donne*",
    ),
    (
        MINE,
        "es",
        "que mande|que envie|que te mande|que te envie|que te di",
    ),
    (
        MINE,
        "pt",
        "que mandei|que enviei|que te mandei|que te enviei",
    ),
    (
        MINE,
        "it",
        "che ho mandato|che ho inviato|che ti ho mandato|che ti ho inviato",
    ),
    (
        MINE,
        "nl",
        "die ik stuurde|die ik heb gestuurd|die ik gestuurd",
    ),
    (
        MINE,
        "ru",
        "которые я отправил*|которые я прислал*|что я отправил*|что я прислал*",
    ),
    (MINE, "zh", "我发的|我发给|我之前发"),
    (MINE, "ja", "私が送った|送ったプリンタ|私が書いた"),
    (MINE, "ko", "내가 보낸|제가 보낸"),
    (MINE, "tr", "gonderdigim|yolladigim"),
    (MINE, "pl", "ktore wyslalem|ktore wyslalam"),
    (MINE, "sv", "som jag skickade|jag skickade"),
    (MINE, "ar", "~التي أرسلتها|~التي ارسلتها"),
    (MINE, "hi", "मैंने भेजे|मैंने भेजा|मैंने भेजी"),
    (MINE, "id", "yang kukirim|yang saya kirim"),
    (MINE, "vi", "minh gui|toi gui|em gui"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_folded_and_every_language_is_covered() {
        let mut unfolded = Vec::new();
        for &(_, lang, words) in LEXICON {
            assert!(LANGUAGES.contains(&lang), "{lang}");
            for w in words.split('|') {
                let bare = w.trim_start_matches('~').trim_end_matches('*');
                assert!(!bare.is_empty(), "{lang}: empty entry in {words:?}");
                let folded = super::super::fold::fold(bare).text;
                if folded.trim() != bare {
                    unfolded.push(format!("{lang}: {w:?} folds to {:?}", folded.trim()));
                }
            }
        }
        assert!(unfolded.is_empty(), "{unfolded:#?}");
        // The override shapes exist in every language.
        for feature in [DISMISS, RULES, PRIOR, ABOVE, VOIDED, YOU, NEW_ROLE] {
            for lang in LANGUAGES {
                assert!(
                    LEXICON.iter().any(|&(f, l, _)| f == feature && l == lang),
                    "{lang} lacks feature {feature:#x}"
                );
            }
        }
    }
}
