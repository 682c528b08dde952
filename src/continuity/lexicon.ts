// The words the rule layer looks for, in Chinese and English. Both lists always apply (a Chinese
// book may quote an English letter, and the other way round); each is small and general: the
// verbs of speech and action, the markers that make a mention not an act (memories, calls,
// letters, dreams, wishes), arrivals, hand-overs, time words and what the state says of the dead.
// Kept apart from the rules so a novelist-facing list can be read and extended in one place.

/** Escapes a word for use inside a RegExp. */
function esc(w: string): string {
  return w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One alternation, longest first so a longer word wins over its prefix. */
export function alternation(words: readonly string[]): string {
  return [...new Set(words)].sort((a, b) => b.length - a.length).map(esc).join('|');
}

// ---------------------------------------------------------------- Chinese

/** Verbs of speech that may follow a name (青梧说、青梧低声道). */
export const ZH_SPEECH = [
  '说', '道', '问', '答', '喊', '叫道', '嚷', '吼', '叹道', '应道', '应了一声', '笑道', '开口', '回答', '回道', '答道', '问道',
  '说道', '低语', '嘟囔', '喃喃', '插嘴', '接口', '打断', '吩咐', '解释', '补充', '告诉', '提醒', '骂', '冷笑', '轻笑', '叹息', '叹了口气',
];

/** Verbs of action that may follow a name (青梧走到窗前、青梧点头). */
export const ZH_ACTION = [
  '走', '拿', '推', '坐', '站', '看', '望', '笑', '点头', '点了点头', '摇头', '摇了摇头', '起身', '转身', '伸手', '抬手', '抬头',
  '低头', '接过', '掏出', '摸出', '取出', '拿出', '握', '攥', '递', '放下', '拉', '扶', '跑', '冲', '跳', '喝', '端', '打开',
  '关上', '拍', '敲', '皱眉', '皱了皱眉', '蹲', '躺', '靠', '挥', '摆手', '回头', '踏', '迈', '抱', '取', '扔', '举', '盯', '瞪', '瞥',
  '抿', '咬', '哭', '愣', '怔', '沉默', '停下', '跪', '拔', '收起', '披', '戴', '穿', '吃', '喂', '翻', '拾', '捡', '搀', '挡',
  '上前', '退', '进', '闯', '赶', '来到', '回到', '凑', '俯身', '弯腰', '叹', '哼', '默然', '眨', '抚', '摸', '听', '探', '睁', '闭',
  '咳', '插', '抢', '叫住', '招手', '添', '挪', '掖', '接', '捡', '解', '转', '撑', '按', '搭', '晃', '抓', '扯', '揉', '擦', '拨',
  '斟', '给', '替', '帮', '把', '将', '从', '朝', '往', '冷哼', '嗤笑', '苦笑', '微笑', '一笑', '大笑', '咧嘴', '挑眉', '耸肩', '侧身', '探头',
];

/** What a subject at the start of a clause is never followed by: 青梧的、青梧和、青梧不在. */
export const ZH_NOT_ACT_NEXT = new Set([...'的之和与跟同及、们这那是家府里边上下中前后呢吗啊吧么不没未别非并他她它也都']);
/** The character's voice, hand, shadow: 青梧的声音、Elara's hand — the person, indirectly. */
export const ZH_BODY = ['声音', '嗓音', '笑声', '手', '影子', '身影', '目光', '眼睛', '眼神', '脸', '脚步', '脚步声', '手指', '视线'];
export const EN_BODY = ['voice', 'hand', 'hands', 'shadow', 'eyes', 'face', 'footsteps', 'fingers', 'gaze', 'laugh', 'laughter', 'silhouette', 'head'];

/** Words for leaving (离开、告辞、stepped out). */
export const ZH_LEAVE = ['离开', '走了出去', '出门', '出了门', '告辞', '离去', '走出', '转身走了', '退了出去', '拂袖而去', '扬长而去', '消失在', '下楼去', '先走', '走远', '出去了', '去了', '回去了', '动身'];
export const EN_LEAVE = ['left', 'leaves', 'stepped out', 'walked out', 'went out', 'departed', 'headed out', 'slipped out', 'disappeared', 'was gone', 'took his leave', 'took her leave', 'go on ahead', 'went home', 'excused himself', 'excused herself', 'strode out', 'stormed out', 'went off', 'rode off', 'drove off', 'walked away', 'headed off'];

/** English irregular past forms that say a subject acted (Theo got up, Mordecai cut in). */
export const EN_IRREGULAR_PAST = [
  'got', 'cut', 'went', 'came', 'drew', 'ran', 'sat', 'stood', 'took', 'gave', 'put', 'set', 'let', 'made', 'said', 'told', 'kept', 'held',
  'brought', 'caught', 'broke', 'spoke', 'rose', 'wore', 'threw', 'shook', 'led', 'lit', 'hit', 'hid', 'began', 'swung', 'struck', 'spun',
  'slid', 'fed', 'flung', 'bent', 'sent', 'leapt', 'swept', 'wept', 'crept', 'knelt', 'found', 'wound', 'sought', 'fought', 'froze', 'chose',
  'woke', 'drove', 'rode', 'wrote', 'tore', 'swore', 'ate', 'drank', 'sang', 'rang', 'swam', 'hung', 'clung', 'flew', 'blew', 'saw', 'lay',
  'laid', 'heard', 'stole', 'understood', 'withdrew', 'became', 'read', 'stuck', 'dug', 'did', 'felt', 'thought', 'knew', 'meant', 'won',
];
/** -ed words that are no act of the subject (died) or not a verb at all. */
export const EN_NOT_ACT_ED = new Set(['died', 'perished', 'passed', 'drowned', 'vanished', 'disappeared', 'departed', 'deceased', 'killed', 'murdered', 'need', 'indeed', 'bed', 'red', 'seed', 'shed', 'speed', 'hundred', 'sacred', 'naked', 'wicked', 'beloved', 'aged', 'ragged', 'used', 'supposed', 'tired', 'married', 'named', 'called', 'unfinished']);
/** Words before a name that put its verb at another time (since Theo left, the day Elara sang). */
export const EN_SUBORDINATE = /(?:when|after|since|before|until|till|once|because|though|although|whenever|as soon as|the day|the night|the moment)\s+$/i;

/**
 * What may stand between a name and its verb: adverbs and manners (青梧低声说、青梧缓缓站起).
 * Negations (不、没、未) are deliberately absent: "青梧没有来" is not an act.
 */
export const ZH_GAP = [
  '低声', '轻声', '小声', '大声', '冷声', '沉声', '柔声', '高声', '厉声', '颤声', '哑声', '冷冷地', '淡淡地', '轻轻地', '慢慢地',
  '缓缓地', '静静地', '默默地', '缓缓', '慢慢', '轻轻', '淡淡', '冷冷', '默默', '静静', '微微', '忽然', '突然', '又', '也', '便', '就',
  '才', '却', '还', '都', '正', '终于', '一边', '立刻', '连忙', '赶紧', '急忙', '随即', '随后', '猛地', '一把', '笑着', '笑了笑',
  '点点头', '点了点头', '皱眉', '皱着眉', '抬头', '低头', '转身', '回头', '看了看', '想了想', '顿了顿', '迟疑着', '犹豫着', '不由得',
  '这才', '只是', '已经', '早已', '正在', '仍', '仍然', '依旧', '一言不发地', '抬起头', '站起来', '叹了口气', '沉吟片刻', '看着他',
  '看着她', '对他', '对她', '朝他', '朝她', '向他', '向她', '拿起', '一面', '不紧不慢地', '慢条斯理地', '若有所思地', '面无表情地',
];

/** Markers that make what is near them not a present act: memories, dreams, calls, letters, wishes. */
export const ZH_MARKERS = [
  '想起', '回忆', '回想', '忆起', '记得', '记起', '当年', '那时', '那年', '那天', '曾经', '从前', '小时候', '梦见', '梦里', '梦中',
  '梦到', '梦境', '幻觉', '恍惚间', '往事', '多年前', '年前', '昔日', '彼时', '电话', '信里', '信中', '信上', '来信', '信纸', '短信',
  '视频', '微信', '语音', '留言', '录音', '照片', '画像', '屏幕', '传讯', '传音', '纸条', '便条', '如果', '要是', '假如', '倘若',
  '若是', '想象', '幻想', '仿佛看见', '仿佛听见', '念着', '思念', '怀念', '惦记', '想念', '遗言', '遗书', '日记', '生前', '遗物', '遗像',
  '遗照', '灵位', '牌位', '坟前', '墓前', '墓碑', '葬礼', '祭奠', '讲述', '听说', '据说', '传说', '字迹', '写道', '写着', '信封',
  '来电', '电报', '手机', '接通', '听筒', '话筒', '那头', '通话', '捎来', '托人', '画面里', '投影',
];

/** Words for arriving (走进、推门、回来). */
export const ZH_ARRIVAL = [
  '走进', '进来', '进门', '推门', '回来', '赶到', '赶来', '来到', '到了', '出现', '闯进', '冲进', '跑进', '踏进', '迈进', '归来',
  '返回', '回到', '到达', '抵达', '现身', '进屋', '掀帘', '挑帘', '入内', '走了进来', '迎面走来', '走过来', '跑过来', '赶了回来', '出现在门口',
];

/** Words for a hand-over (递给、交给、接过). */
export const ZH_HANDOVER = ['递给', '交给', '接过', '还给', '送给', '塞给', '给了', '交到', '递到', '交还', '转交', '抛给', '扔给', '借给', '夺过', '抢过', '拿走', '收下', '递过', '交出', '推给', '推到'];
/** Hand-over words whose subject is the receiver (青梧接过怀表, Mira took it from Elara). */
export const ZH_RECEIVE = ['接过', '夺过', '抢过', '拿走', '收下', '接了过去', '接住'];

/** Verbs of holding or using an item (掏出、握着、拿着). */
export const ZH_HOLD = [
  '掏出', '摸出', '取出', '拿出', '握着', '握住', '攥着', '攥紧', '拿着', '拿起', '捏着', '举起', '举着', '递', '戴着', '佩着', '揣着',
  '打开', '合上', '拨弄', '摩挲', '把玩', '捧着', '抱着', '挂着', '别着', '亮出', '抽出', '拔出', '收起', '晃了晃', '转动', '上弦',
  '放', '抛', '解下', '摘下', '塞进', '收进', '揣进', '藏', '擦拭', '举', '晃', '翻看', '端详', '抚摸', '掂', '按住', '攥紧', '握紧', '递',
];

/** A new day: after one, an earlier time of day is no longer backwards. */
export const ZH_NEW_DAY = ['翌日', '第二天', '次日', '隔天', '隔日', '第二日', '次晨', '翌晨', '明天', '明日', '明早', '几天后', '数日后', '多日后', '三天后', '两天后', '一夜过去', '一夜无话', '天亮了', '过了一夜', '第三天', '又一天'];

/** Time words that are about another time, not the scene's now (昨天下午、每天早上). */
export const ZH_TIME_ELSEWHERE = ['昨天', '昨日', '昨晚', '昨夜', '前天', '明天', '明日', '明早', '明晚', '每天', '每日', '每逢', '每到', '今早', '早些时候', '之前', '先前', '刚才', '那天', '当天', '那日', '那晚', '那夜', '当晚', '平日', '往常', '以往', '直到', '等到', '以前', '今天', '今日', '打算', '准备', '约好', '约定', '要在', '得在', '赶在'];

/** What the state says of someone dead. */
export const ZH_DEAD = /已死|死于|死在|尸身|尸首|遗骸|丧生|罹难|牺牲|自尽|被害|身亡|阵亡|遇害|去世|过世|已故|死亡|死去|殒命|丧命|毙命|尸体|遗体|被杀|死了|咽气|断气|亡故|惨死|战死|病逝|离世|^死/;
/** Phrases with 死 that do not mean dead. */
export const ZH_NOT_DEAD = /假死|装死|诈死|未死|没死|不死|濒死|险些|差点|几乎|生死未卜|死里逃生|死敌|死守|死心|死党|死对头|死死|要死|该死|杀死了|打死了|害死了|以为.{0,4}死/;

// ---------------------------------------------------------------- English

/** Verbs of speech (Elara said, said Elara). */
export const EN_SPEECH = [
  'said', 'says', 'asked', 'asks', 'replied', 'replies', 'answered', 'answers', 'whispered', 'whispers', 'shouted', 'shouts', 'muttered',
  'mutters', 'murmured', 'murmurs', 'cried', 'cries', 'snapped', 'snaps', 'added', 'adds', 'called out', 'yelled', 'yells', 'hissed',
  'hisses', 'growled', 'growls', 'sighed', 'sighs', 'told', 'tells', 'insisted', 'insists', 'admitted', 'admits', 'began', 'continued',
  'continues', 'demanded', 'demands', 'explained', 'explains', 'protested', 'repeated', 'remarked', 'laughed', 'laughs', 'spoke', 'speaks',
  'breathed', 'offered', 'agreed', 'warned', 'warns', 'interrupted', 'announced', 'declared', 'pleaded', 'begged', 'grumbled', 'stammered',
];

/** Verbs of action (Elara walked, Elara nodded). */
export const EN_ACTION = [
  'walked', 'walks', 'stepped', 'steps', 'took', 'takes', 'grabbed', 'grabs', 'picked', 'picks', 'pushed', 'pushes', 'pulled', 'pulls',
  'sat', 'sits', 'stood', 'stands', 'turned', 'turns', 'looked', 'looks', 'glanced', 'glances', 'reached', 'reaches', 'opened', 'opens',
  'closed', 'closes', 'handed', 'hands', 'gave', 'gives', 'raised', 'raises', 'lifted', 'lifts', 'held', 'holds', 'leaned', 'leans',
  'poured', 'pours', 'ran', 'runs', 'frowned', 'frowns', 'grinned', 'grins', 'pointed', 'points', 'shook', 'shakes', 'drew', 'draws',
  'set', 'sets', 'put', 'puts', 'placed', 'places', 'crossed', 'crosses', 'knocked', 'knocks', 'smiled', 'smiles', 'nodded', 'nods',
  'shrugged', 'shrugs', 'laughed', 'laughs', 'sighed', 'sighs', 'watched', 'watches', 'moved', 'moves', 'knelt', 'kneels', 'paced',
  'paces', 'waved', 'waves', 'folded', 'folds', 'tapped', 'taps', 'rose', 'rises', 'hurried', 'hurries', 'lit', 'lights', 'slipped',
  'slips', 'tucked', 'tucks', 'wiped', 'wipes', 'poked', 'stared', 'stares', 'winced', 'winces', 'paused', 'pauses', 'hesitated',
  'gripped', 'grips', 'clutched', 'clutches', 'pocketed', 'pockets', 'wound', 'winds', 'flipped', 'flips', 'snatched', 'tossed', 'threw',
  'caught', 'touched', 'touches', 'kissed', 'hugged', 'blinked', 'blinks', 'swallowed', 'bowed', 'bows', 'climbed', 'climbs', 'drank',
  'drinks', 'ate', 'eats', 'wrote', 'writes', 'read', 'leapt', 'jumped', 'jumps', 'dropped', 'drops', 'lowered', 'lowers', 'backed',
  'straightened', 'nudged', 'shoved', 'unfolded', 'produced', 'fished', 'offered', 'squeezed', 'rubbed', 'scowled', 'glared', 'stiffened',
];

/** Words that may stand between a name and its verb (Elara slowly turned). "-ly" adverbs are allowed too. */
export const EN_GAP = ['then', 'just', 'finally', 'suddenly', 'also', 'still', 'quickly', 'only', 'again', 'simply', 'now', 'quietly', 'softly', 'slowly', 'immediately', 'at last', 'at once', 'promptly'];

/** Markers that make what is near them not a present act. "as if" is no marker (Elara smiled as if…). */
export const EN_MARKERS = [
  'remembered', 'remember', 'remembers', 'remembering', 'recalled', 'recalls', 'recall', 'memory', 'memories', 'years ago', 'back then',
  'long ago', 'in those days', 'dreamed', 'dreamt', 'dream', 'dreams', 'dreaming', 'flashback', 'used to', 'phone', 'phoned', 'on the line',
  'over the line', 'letter', 'letters', 'texted', 'text message', 'message', 'messages', 'voicemail', 'video', 'screen', 'recording',
  'photo', 'photograph', 'portrait', 'imagined', 'imagine', 'imagines', 'pictured', 'thought of', 'thinks of', 'thinking of',
  'wished', 'wish', 'would have', 'could have', 'might have', 'if only', 'once upon', 'in her mind', 'in his mind',
  'diary', 'journal', 'the call', 'a call', 'called her', 'called him', 'calling', 'telegram', 'radio', 'earpiece', 'grave', 'funeral',
  'tomb', 'the late', 'memorial', 'in life', 'rumour', 'rumor', 'told of', 'heard that', 'handwriting',
  'wrote that', 'envelope', 'postcard', 'wondered', 'wondering', 'receiver', 'speakerphone', 'the other end', 'hologram', 'transmission',
];

export const EN_ARRIVAL = [
  'arrived', 'arrives', 'came in', 'comes in', 'came back', 'comes back', 'entered', 'enters', 'returned', 'returns', 'walked in', 'walks in',
  'stepped in', 'steps in', 'stepped into', 'burst in', 'bursts in', 'showed up', 'shows up', 'appeared', 'appears', 'came through',
  'came into', 'strode in', 'slipped in', 'joined', 'joins', 'came home', 'got back', 'walked into', 'ducked in', 'came down', 'came up',
  'came over', 'came inside', 'let herself in', 'let himself in', 'back at last', 'was back',
];

/** Hand-over words; "took … from", "gave … to" are checked as phrases in rules.ts. */
export const EN_HANDOVER = ['handed', 'gave', 'gives', 'passed', 'passes', 'tossed', 'threw', 'returned', 'returns', 'lent', 'lends', 'gave back', 'handed over', 'slid', 'pressed', 'accepted', 'received'];

export const EN_HOLD = [
  'held', 'holds', 'holding', 'pulled out', 'pulls out', 'took out', 'takes out', 'drew out', 'drew', 'handed', 'gripped', 'grips',
  'clutched', 'clutches', 'clutching', 'raised', 'raises', 'wound', 'winds', 'opened', 'opens', 'flipped open', 'pocketed', 'produced',
  'fished out', 'turned', 'weighed', 'wore', 'wears', 'wearing', 'carried', 'carries', 'carrying', 'checked', 'checks', 'brandished',
  'unsheathed', 'lifted', 'lifts', 'twirled', 'tucked', 'slipped', 'set down', 'laid', 'polished', 'examined', 'showed', 'waved', 'took',
  'set', 'tossed', 'spun', 'slid', 'twisted', 'tapped', 'rubbed', 'dropped', 'put', 'placed', 'stuffed', 'hid', 'swung', 'thumbed', 'turning',
];

export const EN_NEW_DAY = [
  'the next morning', 'the next day', 'the following day', 'the following morning', 'next morning', 'the day after', 'the next evening',
  'the next night', 'a day later', 'days later', 'two days later', 'the morning after', 'by morning', 'tomorrow', 'overnight', 'a week later',
  'next day', 'another day', 'the following evening', 'the night passed', 'morning came',
];

export const EN_TIME_ELSEWHERE = ['yesterday', 'tomorrow', 'every', 'each', 'last', 'earlier', 'that', 'previous', 'before', 'until', 'till', 'since', 'usually', 'often', 'this', 'will', 'would', 'shall', "'ll", 'planned', 'plan', 'by', 'tomorrow', 'wait for'];

export const EN_DEAD = /^(?:dead|deceased|killed|died|slain|murdered|departed this life)\b|\b(?:is|was|now|lies|lay|found|been|were|are|fell|left)\s+(?:dead|deceased|killed|slain|murdered)\b|\b(?:died|deceased|corpse|body was found|passed away|killed in|was killed|were killed|got killed|lifeless|dead body|perished)\b/;
export const EN_NOT_DEAD = /\b(?:not|never|nearly|almost|fake[ds]?|faked|feigned|feigning|presumed|thought|believed|rumou?red|playing|play|half|undead|un-dead)\s+(?:\w+\s+)?(?:dead|died|killed|deceased)\b|\bdeath\s*wish\b|\bdead\s*(?:tired|serious|set|end|ringer|silent)\b/;

// ---------------------------------------------------------------- Time of day

/**
 * Times of day on one scale: 1 small hours … 9 midnight. A word covers a range, so "夜里" (8–9)
 * is not earlier than "深夜" (9). Night → small hours or early morning counts as going forward
 * (the night passed), which rules.ts handles.
 */
export interface TimeWord {
  word: string;
  lo: number;
  hi: number;
}

export const ZH_TIMES: readonly TimeWord[] = [
  { word: '凌晨', lo: 1, hi: 1 }, { word: '丑时', lo: 1, hi: 1 }, { word: '寅时', lo: 1, hi: 1 }, { word: '四更', lo: 1, hi: 1 }, { word: '五更', lo: 1, hi: 2 },
  { word: '黎明', lo: 2, hi: 2 }, { word: '拂晓', lo: 2, hi: 2 }, { word: '破晓', lo: 2, hi: 2 }, { word: '天刚亮', lo: 2, hi: 2 }, { word: '天蒙蒙亮', lo: 2, hi: 2 }, { word: '日出', lo: 2, hi: 2 }, { word: '卯时', lo: 2, hi: 3 },
  { word: '清晨', lo: 3, hi: 3 }, { word: '早晨', lo: 3, hi: 3 }, { word: '早上', lo: 2, hi: 4 }, { word: '一早', lo: 2, hi: 3 }, { word: '晨光', lo: 2, hi: 3 }, { word: '辰时', lo: 3, hi: 4 },
  { word: '上午', lo: 4, hi: 4 }, { word: '巳时', lo: 4, hi: 4 },
  { word: '中午', lo: 5, hi: 5 }, { word: '正午', lo: 5, hi: 5 }, { word: '晌午', lo: 5, hi: 5 }, { word: '午时', lo: 5, hi: 5 }, { word: '日中', lo: 5, hi: 5 },
  { word: '午后', lo: 6, hi: 6 }, { word: '下午', lo: 6, hi: 6 }, { word: '未时', lo: 6, hi: 6 }, { word: '申时', lo: 6, hi: 7 },
  { word: '傍晚', lo: 7, hi: 7 }, { word: '黄昏', lo: 7, hi: 7 }, { word: '日落', lo: 7, hi: 7 }, { word: '薄暮', lo: 7, hi: 7 }, { word: '夕阳', lo: 7, hi: 7 }, { word: '暮色', lo: 7, hi: 8 }, { word: '酉时', lo: 7, hi: 7 },
  { word: '入夜', lo: 8, hi: 8 }, { word: '晚上', lo: 7, hi: 9 }, { word: '夜里', lo: 8, hi: 9 }, { word: '夜晚', lo: 8, hi: 9 }, { word: '天黑', lo: 8, hi: 8 }, { word: '夜色', lo: 8, hi: 9 }, { word: '夜幕', lo: 8, hi: 8 }, { word: '戌时', lo: 8, hi: 8 }, { word: '掌灯', lo: 8, hi: 8 }, { word: '当夜', lo: 8, hi: 9 },
  { word: '天还没亮', lo: 1, hi: 1 }, { word: '天未亮', lo: 1, hi: 1 }, { word: '天色未明', lo: 1, hi: 1 }, { word: '太阳刚升起', lo: 2, hi: 2 }, { word: '太阳刚刚升起', lo: 2, hi: 2 },
  { word: '旭日', lo: 2, hi: 2 }, { word: '朝阳', lo: 2, hi: 3 }, { word: '晨雾', lo: 2, hi: 3 }, { word: '早饭', lo: 3, hi: 3 }, { word: '早餐', lo: 3, hi: 3 }, { word: '午饭', lo: 5, hi: 5 }, { word: '晚饭', lo: 7, hi: 8 },
  { word: '深夜', lo: 9, hi: 9 }, { word: '半夜', lo: 9, hi: 9 }, { word: '午夜', lo: 9, hi: 9 }, { word: '子时', lo: 9, hi: 9 }, { word: '亥时', lo: 9, hi: 9 }, { word: '三更', lo: 9, hi: 9 }, { word: '夜深', lo: 9, hi: 9 }, { word: '子夜', lo: 9, hi: 9 },
];

export const EN_TIMES: readonly TimeWord[] = [
  { word: 'small hours', lo: 1, hi: 1 }, { word: 'before dawn', lo: 1, hi: 1 }, { word: 'predawn', lo: 1, hi: 1 },
  { word: 'dawn', lo: 2, hi: 2 }, { word: 'daybreak', lo: 2, hi: 2 }, { word: 'sunrise', lo: 2, hi: 2 }, { word: 'first light', lo: 2, hi: 2 },
  { word: 'early morning', lo: 2, hi: 3 }, { word: 'morning', lo: 2, hi: 4 }, { word: 'late morning', lo: 4, hi: 4 }, { word: 'breakfast', lo: 3, hi: 3 },
  { word: 'noon', lo: 5, hi: 5 }, { word: 'midday', lo: 5, hi: 5 }, { word: 'lunchtime', lo: 5, hi: 5 }, { word: 'high noon', lo: 5, hi: 5 },
  { word: 'afternoon', lo: 6, hi: 6 }, { word: 'late afternoon', lo: 6, hi: 7 },
  { word: 'evening', lo: 7, hi: 8 }, { word: 'dusk', lo: 7, hi: 7 }, { word: 'sunset', lo: 7, hi: 7 }, { word: 'twilight', lo: 7, hi: 7 }, { word: 'sundown', lo: 7, hi: 7 }, { word: 'supper', lo: 7, hi: 8 },
  { word: 'sun was rising', lo: 2, hi: 2 }, { word: 'sun was just rising', lo: 2, hi: 2 }, { word: 'rising sun', lo: 2, hi: 2 }, { word: 'sun came up', lo: 2, hi: 2 },
  { word: 'lunch', lo: 5, hi: 5 }, { word: 'dinner', lo: 7, hi: 8 },
  { word: 'night', lo: 8, hi: 9 }, { word: 'nightfall', lo: 8, hi: 8 }, { word: 'tonight', lo: 8, hi: 9 },
  { word: 'midnight', lo: 9, hi: 9 }, { word: 'late night', lo: 9, hi: 9 }, { word: 'dead of night', lo: 9, hi: 9 },
];
