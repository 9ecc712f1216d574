// The built-in platforms, in the order `hermes gateway setup` lists them. Adding one: write
// `src/gateway/platforms/<name>.ts` exporting `definition` and add it here.
import { definition as apiServer } from './api-server.ts';
import { definition as bluebubbles } from './bluebubbles.ts';
import { definition as dingtalk } from './dingtalk.ts';
import { definition as discord } from './discord.ts';
import { definition as email } from './email.ts';
import { definition as feishu } from './feishu.ts';
import { definition as googleChat } from './google-chat.ts';
import { definition as homeassistant } from './homeassistant.ts';
import { definition as irc } from './irc.ts';
import { definition as line } from './line.ts';
import { definition as matrix } from './matrix.ts';
import { definition as mattermost } from './mattermost.ts';
import { setBuiltins } from './registry.ts';
import { definition as qqbot } from './qqbot.ts';
import { definition as signal } from './signal.ts';
import { definition as slack } from './slack.ts';
import { definition as sms } from './sms.ts';
import { definition as teams } from './teams.ts';
import { definition as telegram } from './telegram.ts';
import { definition as webhook } from './webhook.ts';
import { definition as wecom } from './wecom.ts';
import { definition as weixin } from './weixin.ts';
import { definition as whatsapp } from './whatsapp.ts';
import { definition as whatsappCloud } from './whatsapp-cloud.ts';
import { definition as yuanbao } from './yuanbao.ts';

// Read lazily: the definitions are only touched once every module has finished loading.
setBuiltins(() => [telegram, discord, slack, whatsapp, whatsappCloud, matrix, mattermost, signal, homeassistant, sms, bluebubbles, irc, teams, googleChat, line, dingtalk, feishu, wecom, weixin, qqbot, yuanbao, email, apiServer, webhook]);
