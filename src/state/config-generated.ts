// GENERATED CODE by scripts/config-gen.mjs from src/state/config-zod.ts: do not edit (run `node scripts/config-gen.mjs`).
// The defaults config.yaml is merged over, and the JSON Schema of config.yaml, as plain data.
import type { JsonSchema } from './config-schema.ts';
import type { HermesConfig } from './config-zod.ts';

export const CONFIG_DEFAULTS: HermesConfig = {
  "_config_version": 33,
  "model": {
    "default": "",
    "provider": "auto",
    "base_url": "",
    "api_key": "",
    "api_mode": "",
    "context_length": null,
    "tool_call_parser": "auto"
  },
  "providers": {},
  "custom_providers": [],
  "fallback_providers": [],
  "credential_pool_strategies": {},
  "toolsets": [
    "hermes-cli"
  ],
  "platform_toolsets": {},
  "custom_toolsets": {},
  "model_aliases": {},
  "quick_commands": {},
  "command_allowlist": [],
  "mcp_servers": {},
  "timezone": "",
  "prefill_messages_file": "",
  "file_read_max_chars": 100000,
  "file_search_timeout_seconds": 30,
  "tool_output": {
    "max_bytes": 50000,
    "max_lines": 2000,
    "max_line_length": 2000
  },
  "agent": {
    "max_turns": 90,
    "api_max_retries": 3,
    "reasoning_effort": "",
    "disabled_toolsets": [],
    "system_prompt": "",
    "tool_use_enforcement": "auto",
    "clarify_timeout": 3600,
    "gateway_timeout": 1800,
    "agent_cache": {
      "idle_ttl_secs": 3600
    }
  },
  "terminal": {
    "backend": "local",
    "cwd": ".",
    "timeout": 180,
    "oneshot_completion_wait_seconds": 600,
    "env_passthrough": [],
    "docker_image": "nikolaik/python-nodejs:python3.11-nodejs20",
    "docker_forward_env": [],
    "docker_volumes": [],
    "docker_network": true,
    "docker_shm_size": "1g",
    "container_cpu": 1,
    "container_memory": 5120,
    "container_disk": 51200,
    "container_persistent": true,
    "persistent_shell": true,
    "ssh_host": "",
    "ssh_user": "",
    "ssh_port": 22,
    "ssh_key": "",
    "sandbox": {
      "mode": "workspace-write",
      "network": "on",
      "extra_writable": []
    }
  },
  "compression": {
    "enabled": true,
    "threshold": 0.5,
    "target_ratio": 0.2,
    "protect_last_n": 20,
    "protect_first_n": 3,
    "max_attempts": 3,
    "in_place": true
  },
  "prompt_caching": {
    "cache_ttl": "5m"
  },
  "auxiliary": {
    "vision": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 120,
      "extra_body": {},
      "reasoning_effort": "",
      "download_timeout": 30
    },
    "web_extract": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 120,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "compression": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 120,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "session_search": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 60,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "skills_hub": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 30,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "approval": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 30,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "mcp": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 30,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "title_generation": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 30,
      "extra_body": {},
      "reasoning_effort": ""
    },
    "background_review": {
      "provider": "auto",
      "model": "",
      "base_url": "",
      "api_key": "",
      "timeout": 300,
      "extra_body": {},
      "reasoning_effort": ""
    }
  },
  "display": {
    "tool_progress": "all",
    "streaming": true,
    "show_reasoning": true,
    "busy_input_mode": "interrupt",
    "personality": "",
    "compact": false,
    "show_cost": false,
    "skin": "default",
    "final_response_markdown": "render",
    "memory_notifications": "on",
    "interface": "cli",
    "language": "en"
  },
  "memory": {
    "memory_enabled": true,
    "user_profile_enabled": true,
    "memory_char_limit": 2200,
    "user_char_limit": 1375,
    "nudge_interval": 10,
    "provider": ""
  },
  "skills": {
    "external_dirs": [],
    "creation_nudge_interval": 10,
    "config": {}
  },
  "delegation": {
    "model": "",
    "provider": "",
    "base_url": "",
    "api_key": "",
    "max_iterations": 50,
    "max_concurrent_children": 3,
    "max_spawn_depth": 1,
    "max_summary_chars": 24000,
    "subagent_auto_approve": false,
    "orchestrator_enabled": true
  },
  "approvals": {
    "mode": "manual",
    "timeout": 300,
    "cron_mode": "deny",
    "single_query_mode": "deny",
    "unattended_mode": "deny",
    "deny": [],
    "smart_policy": "",
    "denial_breaker_threshold": 3
  },
  "security": {
    "redact_secrets": true,
    "allow_private_urls": false,
    "website_blocklist": {
      "enabled": false,
      "domains": [],
      "shared_files": []
    }
  },
  "web": {
    "backend": "",
    "extract_char_limit": 15000
  },
  "browser": {
    "cloud_provider": "",
    "cdp_url": "",
    "inactivity_timeout": 120,
    "command_timeout": 30,
    "snapshot_threshold": 15000,
    "headed": false,
    "allow_private_urls": false,
    "profile": ""
  },
  "image_gen": {
    "provider": "fal",
    "model": ""
  },
  "tts": {
    "provider": "edge",
    "edge": {
      "voice": "en-US-AriaNeural"
    },
    "openai": {
      "model": "gpt-4o-mini-tts",
      "voice": "alloy"
    },
    "elevenlabs": {
      "voice_id": "pNInz6obpgDQGcFmaJgB",
      "model_id": "eleven_multilingual_v2"
    }
  },
  "stt": {
    "enabled": true,
    "provider": "local",
    "local": {
      "model": "base"
    },
    "openai": {
      "model": "whisper-1"
    },
    "groq": {
      "model": "whisper-large-v3-turbo"
    }
  },
  "voice": {
    "record_key": "ctrl+b",
    "max_recording_seconds": 120,
    "auto_tts": false,
    "silence_threshold": 200,
    "silence_duration": 3
  },
  "code_execution": {
    "timeout": 300,
    "max_tool_calls": 50
  },
  "tool_loop_guardrails": {
    "warnings_enabled": true,
    "hard_stop_enabled": false,
    "warn_after": {
      "exact_failure": 2,
      "same_tool_failure": 3,
      "idempotent_no_progress": 2
    },
    "hard_stop_after": {
      "exact_failure": 5,
      "same_tool_failure": 8,
      "idempotent_no_progress": 5
    }
  },
  "cron": {
    "provider": "",
    "script_timeout_seconds": 120,
    "max_parallel": 4,
    "output_retention": 50
  },
  "kanban": {
    "dispatch_in_gateway": true,
    "dispatch_interval_seconds": 60,
    "failure_limit": 2,
    "max_in_progress": null,
    "dispatch_stale_timeout_seconds": 14400,
    "auto_subscribe_on_create": true,
    "default_assignee": "default"
  },
  "codex": {
    "path": "",
    "home": "",
    "model": "",
    "turn_timeout": 600
  },
  "session_reset": {
    "mode": "both",
    "idle_minutes": 1440,
    "at_hour": 4
  },
  "checkpoints": {
    "enabled": false,
    "max_snapshots": 20,
    "max_total_size_mb": 500,
    "max_file_size_mb": 10,
    "auto_prune": true,
    "retention_days": 7
  },
  "group_sessions_per_user": true,
  "thread_sessions_per_user": false,
  "unauthorized_dm_behavior": "pair",
  "logging": {
    "level": "INFO",
    "max_size_mb": 5,
    "backup_count": 3
  },
  "save_trajectories": false,
  "state": {
    "backend": "sqlite",
    "url": ""
  }
};

export const CONFIG_JSON_SCHEMA: JsonSchema = {
  "type": "object",
  "properties": {
    "_config_version": {
      "default": 33,
      "type": "number"
    },
    "model": {
      "message": "must be a model name or a mapping",
      "type": "object",
      "properties": {
        "default": {
          "default": "",
          "type": "string"
        },
        "provider": {
          "default": "auto",
          "optionsFrom": "providers",
          "type": "string"
        },
        "base_url": {
          "default": "",
          "type": "string"
        },
        "api_key": {
          "default": "",
          "type": "string"
        },
        "api_mode": {
          "default": "",
          "options": [
            "",
            "chat_completions",
            "anthropic_messages",
            "codex_responses"
          ],
          "type": "string",
          "enum": [
            "",
            "chat_completions",
            "anthropic_messages",
            "codex_responses",
            "openai",
            "responses",
            "anthropic"
          ]
        },
        "context_length": {
          "default": null,
          "anyOf": [
            {
              "type": "number"
            },
            {
              "type": "null"
            }
          ]
        },
        "tool_call_parser": {
          "default": "auto",
          "options": [
            "auto",
            "none",
            "hermes",
            "llama3",
            "pythonic",
            "mistral",
            "deepseek",
            "json"
          ],
          "type": "string"
        },
        "openai_runtime": {
          "type": "string"
        },
        "max_tokens": {
          "anyOf": [
            {
              "type": "number"
            },
            {
              "type": "null"
            }
          ]
        },
        "name": {
          "unsupported": true
        },
        "model": {
          "unsupported": true
        },
        "api_base": {
          "unsupported": true
        },
        "default_headers": {
          "unsupported": true
        },
        "extra_body": {
          "unsupported": true
        },
        "temperature": {
          "unsupported": true
        },
        "local": {
          "unsupported": true
        },
        "server": {
          "unsupported": true
        },
        "num_ctx": {
          "unsupported": true
        },
        "lean": {
          "unsupported": true
        },
        "lean_below": {
          "unsupported": true
        }
      }
    },
    "providers": {
      "default": {},
      "message": "must be a mapping of provider names",
      "type": "object",
      "additionalProperties": {
        "type": "object",
        "properties": {
          "base_url": {
            "type": "string"
          },
          "api_key": {
            "type": "string"
          },
          "key_env": {
            "type": "string"
          },
          "api_mode": {
            "type": "string"
          },
          "model": {
            "type": "string"
          },
          "extra_headers": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            }
          },
          "context_length": {
            "type": "number"
          }
        },
        "additionalProperties": {}
      }
    },
    "custom_providers": {
      "default": [],
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": {}
      }
    },
    "fallback_providers": {
      "default": [],
      "message": "must be a list",
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "provider": {
            "type": "string"
          },
          "model": {
            "type": "string"
          },
          "base_url": {
            "type": "string"
          },
          "api_key": {
            "type": "string"
          },
          "key_env": {
            "type": "string"
          },
          "api_mode": {
            "type": "string"
          },
          "context_length": {
            "type": "number"
          }
        },
        "required": [
          "provider",
          "model"
        ],
        "additionalProperties": {},
        "message": "needs both `provider` and `model`"
      }
    },
    "credential_pool_strategies": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "string"
      }
    },
    "toolsets": {
      "default": [
        "hermes-cli"
      ],
      "type": "array",
      "items": {
        "type": "string"
      }
    },
    "platform_toolsets": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "array",
        "items": {
          "type": "string"
        }
      }
    },
    "custom_toolsets": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "array",
        "items": {
          "type": "string"
        }
      }
    },
    "model_aliases": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "string"
      }
    },
    "quick_commands": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "object",
        "properties": {
          "type": {
            "type": "string"
          },
          "command": {
            "type": "string"
          },
          "target": {
            "type": "string"
          },
          "description": {
            "type": "string"
          }
        },
        "additionalProperties": {}
      }
    },
    "command_allowlist": {
      "default": [],
      "type": "array",
      "items": {
        "type": "string"
      }
    },
    "mcp_servers": {
      "default": {},
      "type": "object",
      "additionalProperties": {
        "type": "object",
        "additionalProperties": {}
      }
    },
    "bot_peers": {
      "type": "object",
      "additionalProperties": {
        "type": "object",
        "additionalProperties": {}
      }
    },
    "timezone": {
      "default": "",
      "type": "string"
    },
    "prefill_messages_file": {
      "default": "",
      "type": "string"
    },
    "file_read_max_chars": {
      "default": 100000,
      "type": "number"
    },
    "file_search_timeout_seconds": {
      "default": 30,
      "type": "number"
    },
    "tool_output": {
      "type": "object",
      "properties": {
        "max_bytes": {
          "default": 50000,
          "type": "number"
        },
        "max_lines": {
          "default": 2000,
          "type": "number"
        },
        "max_line_length": {
          "default": 2000,
          "type": "number"
        }
      }
    },
    "agent": {
      "type": "object",
      "properties": {
        "environment_hint": {
          "unsupported": true
        },
        "coding_context": {
          "unsupported": true
        },
        "coding_instructions": {
          "unsupported": true
        },
        "verify_on_stop": {
          "unsupported": true
        },
        "gateway_auto_continue_freshness": {
          "unsupported": true
        },
        "max_turns": {
          "default": 90,
          "message": "must be a positive number (or null for unlimited)",
          "anyOf": [
            {
              "type": "number",
              "exclusiveMinimum": 0
            },
            {
              "type": "null"
            },
            {
              "type": "string",
              "enum": [
                "none",
                "unlimited"
              ]
            }
          ]
        },
        "api_max_retries": {
          "default": 3,
          "type": "number"
        },
        "reasoning_effort": {
          "default": "",
          "options": [
            "",
            "none",
            "minimal",
            "low",
            "medium",
            "high",
            "xhigh"
          ],
          "type": "string"
        },
        "disabled_toolsets": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "system_prompt": {
          "default": "",
          "type": "string"
        },
        "tool_use_enforcement": {
          "default": "auto",
          "options": [
            "auto",
            "on",
            "off"
          ],
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "boolean"
            },
            {
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          ]
        },
        "clarify_timeout": {
          "default": 3600,
          "type": "number"
        },
        "gateway_timeout": {
          "default": 1800,
          "type": "number"
        },
        "agent_cache": {
          "type": "object",
          "properties": {
            "max_size": {
              "type": "number"
            },
            "idle_ttl_secs": {
              "default": 3600,
              "type": "number"
            }
          }
        },
        "max_verify_nudges": {
          "type": "number"
        },
        "personalities": {
          "type": "object",
          "additionalProperties": {}
        },
        "reasoning_overrides": {
          "type": "object",
          "additionalProperties": {}
        },
        "budget_warning_ratio": {
          "unsupported": true
        },
        "run_budget_seconds": {
          "unsupported": true
        },
        "empty_response_guard": {
          "unsupported": true
        },
        "service_tier": {
          "unsupported": true
        },
        "fast_auto_seconds": {
          "unsupported": true
        },
        "execution_guidance": {
          "unsupported": true
        },
        "intent_ack_continuation": {
          "unsupported": true
        },
        "stall_guards": {
          "unsupported": true
        },
        "task_completion_guidance": {
          "unsupported": true
        },
        "parallel_tool_call_guidance": {
          "unsupported": true
        },
        "environment_probe": {
          "unsupported": true
        },
        "reasoning_echo": {
          "unsupported": true
        },
        "image_input_mode": {
          "unsupported": true
        },
        "gateway_timeout_warning": {
          "unsupported": true
        },
        "gateway_notify_interval": {
          "unsupported": true
        },
        "restart_drain_timeout": {
          "unsupported": true
        },
        "cron_drain_timeout": {
          "unsupported": true
        },
        "restart_after_turn_timeout": {
          "unsupported": true
        },
        "turn_liveness": {
          "unsupported": true
        },
        "local_stream_stale_timeout": {
          "unsupported": true
        },
        "max_tokens": {
          "unsupported": true
        },
        "verbose": {
          "unsupported": true
        },
        "verify_guidance": {
          "unsupported": true
        }
      }
    },
    "terminal": {
      "type": "object",
      "properties": {
        "daemon_term_grace_seconds": {
          "unsupported": true
        },
        "backend": {
          "default": "local",
          "options": [
            "local",
            "ssh",
            "docker",
            "singularity",
            "modal",
            "daytona",
            "vercel_sandbox"
          ],
          "message": "must be one of: local, ssh, docker, singularity, modal, daytona, vercel_sandbox (or a plugin backend name)",
          "type": "string",
          "pattern": "^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$"
        },
        "cwd": {
          "default": ".",
          "type": "string"
        },
        "timeout": {
          "default": 180,
          "type": "number"
        },
        "oneshot_completion_wait_seconds": {
          "default": 600,
          "type": "number"
        },
        "env_passthrough": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "docker_image": {
          "default": "nikolaik/python-nodejs:python3.11-nodejs20",
          "type": "string"
        },
        "docker_forward_env": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "docker_volumes": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "docker_network": {
          "default": true,
          "type": "boolean"
        },
        "docker_shm_size": {
          "default": "1g",
          "type": "string"
        },
        "container_cpu": {
          "default": 1,
          "type": "number"
        },
        "container_memory": {
          "default": 5120,
          "type": "number"
        },
        "container_disk": {
          "default": 51200,
          "type": "number"
        },
        "container_persistent": {
          "default": true,
          "type": "boolean"
        },
        "persistent_shell": {
          "default": true,
          "type": "boolean"
        },
        "ssh_host": {
          "default": "",
          "type": "string"
        },
        "ssh_user": {
          "default": "",
          "type": "string"
        },
        "ssh_port": {
          "default": 22,
          "type": "number"
        },
        "ssh_key": {
          "default": "",
          "type": "string"
        },
        "sandbox": {
          "type": "object",
          "properties": {
            "mode": {
              "default": "workspace-write",
              "type": "string",
              "enum": [
                "workspace-write",
                "read-only",
                "off"
              ]
            },
            "network": {
              "default": "on",
              "options": [
                "on",
                "off"
              ],
              "message": "must be on or off",
              "anyOf": [
                {
                  "type": "string",
                  "enum": [
                    "on",
                    "off"
                  ]
                },
                {
                  "type": "boolean"
                }
              ]
            },
            "extra_writable": {
              "default": [],
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          }
        },
        "local_persistent": {
          "unsupported": true
        },
        "subagent_auto_approve": {
          "unsupported": true
        },
        "singularity_image": {
          "unsupported": true
        },
        "modal_image": {
          "unsupported": true
        },
        "daytona_image": {
          "unsupported": true
        },
        "modal_mode": {
          "unsupported": true
        },
        "shell_init_files": {
          "unsupported": true
        },
        "auto_source_bashrc": {
          "unsupported": true
        },
        "home_mode": {
          "unsupported": true
        },
        "lifetime_seconds": {
          "unsupported": true
        },
        "temp_dir": {
          "unsupported": true
        },
        "docker_env": {
          "unsupported": true
        },
        "docker_mount_cwd_to_workspace": {
          "unsupported": true
        },
        "docker_extra_args": {
          "unsupported": true
        },
        "docker_run_as_host_user": {
          "unsupported": true
        },
        "docker_snap_compat": {
          "unsupported": true
        },
        "docker_persist_across_processes": {
          "unsupported": true
        },
        "docker_shared_container_key": {
          "unsupported": true
        },
        "docker_orphan_reaper": {
          "unsupported": true
        },
        "sandbox_dir": {
          "unsupported": true
        },
        "vercel_runtime": {
          "unsupported": true
        },
        "degraded_mode": {
          "unsupported": true
        }
      }
    },
    "compression": {
      "type": "object",
      "properties": {
        "progress_notices": {
          "unsupported": true
        },
        "min_tail_user_messages": {
          "unsupported": true
        },
        "proactive_prune_tokens": {
          "unsupported": true
        },
        "proactive_prune_min_result_chars": {
          "unsupported": true
        },
        "proactive_prune_min_reclaim_tokens": {
          "unsupported": true
        },
        "hygiene_hard_message_limit": {
          "unsupported": true
        },
        "hygiene_timeout_seconds": {
          "unsupported": true
        },
        "hygiene_failure_cooldown_seconds": {
          "unsupported": true
        },
        "codex_gpt55_autoraise": {
          "unsupported": true
        },
        "codex_gpt55_autoraise_notice": {
          "unsupported": true
        },
        "codex_app_server_auto": {
          "unsupported": true
        },
        "enabled": {
          "default": true,
          "type": "boolean"
        },
        "threshold": {
          "default": 0.5,
          "type": "number"
        },
        "target_ratio": {
          "default": 0.2,
          "type": "number"
        },
        "protect_last_n": {
          "default": 20,
          "type": "number"
        },
        "protect_first_n": {
          "default": 3,
          "type": "number"
        },
        "max_attempts": {
          "default": 3,
          "type": "number"
        },
        "in_place": {
          "default": true,
          "type": "boolean"
        },
        "model_thresholds": {
          "type": "object",
          "additionalProperties": {}
        },
        "threshold_tokens": {
          "unsupported": true
        },
        "tail_mode": {
          "unsupported": true
        },
        "abort_on_summary_failure": {
          "unsupported": true
        },
        "context_timeout_seconds": {
          "unsupported": true
        },
        "idle_compact_after_seconds": {
          "unsupported": true
        }
      }
    },
    "prompt_caching": {
      "type": "object",
      "properties": {
        "cache_ttl": {
          "default": "5m",
          "type": "string",
          "enum": [
            "5m",
            "1h",
            "auto"
          ]
        }
      }
    },
    "auxiliary": {
      "type": "object",
      "properties": {
        "vision": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 120,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "default": 30,
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "web_extract": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 120,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "compression": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 120,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "session_search": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 60,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "skills_hub": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 30,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "approval": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 30,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "mcp": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 30,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "title_generation": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 30,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        },
        "background_review": {
          "type": "object",
          "properties": {
            "provider": {
              "default": "auto",
              "type": "string"
            },
            "model": {
              "default": "",
              "type": "string"
            },
            "base_url": {
              "default": "",
              "type": "string"
            },
            "api_key": {
              "default": "",
              "type": "string"
            },
            "timeout": {
              "default": 300,
              "type": "number"
            },
            "extra_body": {
              "default": {},
              "type": "object",
              "additionalProperties": {}
            },
            "reasoning_effort": {
              "default": "",
              "type": "string"
            },
            "download_timeout": {
              "type": "number"
            }
          },
          "additionalProperties": {}
        }
      },
      "additionalProperties": {
        "type": "object",
        "properties": {
          "provider": {
            "default": "auto",
            "type": "string"
          },
          "model": {
            "default": "",
            "type": "string"
          },
          "base_url": {
            "default": "",
            "type": "string"
          },
          "api_key": {
            "default": "",
            "type": "string"
          },
          "timeout": {
            "default": 30,
            "type": "number"
          },
          "extra_body": {
            "default": {},
            "type": "object",
            "additionalProperties": {}
          },
          "reasoning_effort": {
            "default": "",
            "type": "string"
          },
          "download_timeout": {
            "type": "number"
          }
        },
        "additionalProperties": {}
      }
    },
    "display": {
      "type": "object",
      "properties": {
        "resume_exchanges": {
          "unsupported": true
        },
        "resume_max_user_chars": {
          "unsupported": true
        },
        "resume_max_assistant_chars": {
          "unsupported": true
        },
        "resume_max_assistant_lines": {
          "unsupported": true
        },
        "resume_skip_tool_only": {
          "unsupported": true
        },
        "busy_steer_ack_enabled": {
          "unsupported": true
        },
        "tui_auto_resume_recent": {
          "unsupported": true
        },
        "tui_agents_nudge": {
          "unsupported": true
        },
        "reasoning_full": {
          "unsupported": true
        },
        "timestamp_format": {
          "unsupported": true
        },
        "persistent_output": {
          "unsupported": true
        },
        "persistent_output_max_lines": {
          "unsupported": true
        },
        "persist_prompts": {
          "unsupported": true
        },
        "credits_notices": {
          "unsupported": true
        },
        "turn_completion_explainer": {
          "unsupported": true
        },
        "battery": {
          "unsupported": true
        },
        "tui_status_indicator": {
          "unsupported": true
        },
        "cli_refresh_interval": {
          "unsupported": true
        },
        "user_message_preview": {
          "unsupported": true
        },
        "interim_assistant_messages": {
          "unsupported": true
        },
        "show_commentary": {
          "unsupported": true
        },
        "tool_preview_length": {
          "unsupported": true
        },
        "friendly_tool_labels": {
          "unsupported": true
        },
        "tool_progress_grouping": {
          "unsupported": true
        },
        "status_phrases": {
          "unsupported": true
        },
        "reasoning_style": {
          "unsupported": true
        },
        "ephemeral_system_ttl": {
          "unsupported": true
        },
        "copy_shortcut": {
          "unsupported": true
        },
        "pet": {
          "unsupported": true
        },
        "tool_progress": {
          "default": "all",
          "type": "string",
          "enum": [
            "off",
            "new",
            "all",
            "verbose"
          ]
        },
        "streaming": {
          "default": true,
          "type": "boolean"
        },
        "show_reasoning": {
          "default": true,
          "type": "boolean"
        },
        "busy_input_mode": {
          "default": "interrupt",
          "type": "string",
          "enum": [
            "interrupt",
            "queue",
            "steer"
          ]
        },
        "personality": {
          "default": "",
          "type": "string"
        },
        "compact": {
          "default": false,
          "type": "boolean"
        },
        "show_cost": {
          "default": false,
          "type": "boolean"
        },
        "skin": {
          "default": "default",
          "type": "string"
        },
        "final_response_markdown": {
          "default": "render",
          "options": [
            "render",
            "strip",
            "raw"
          ],
          "type": "string"
        },
        "memory_notifications": {
          "default": "on",
          "options": [
            "on",
            "off"
          ],
          "type": "string"
        },
        "interface": {
          "default": "cli",
          "options": [
            "cli",
            "tui"
          ],
          "type": "string"
        },
        "language": {
          "default": "en",
          "type": "string"
        },
        "inline_diffs": {
          "type": "boolean"
        },
        "indicator_style": {
          "type": "string"
        },
        "tui_alt_screen": {
          "type": "boolean"
        },
        "mouse_tracking": {
          "anyOf": [
            {
              "type": "string"
            },
            {
              "type": "boolean"
            }
          ]
        },
        "platforms": {
          "type": "object",
          "additionalProperties": {
            "type": "object",
            "additionalProperties": {}
          }
        },
        "tool_progress_command": {
          "unsupported": true
        },
        "busy_ack_enabled": {
          "unsupported": true
        },
        "resume_display": {
          "unsupported": true
        },
        "file_mutation_verifier": {
          "unsupported": true
        },
        "background_process_notifications": {
          "unsupported": true
        },
        "runtime_footer": {
          "unsupported": true
        },
        "status_bar": {
          "unsupported": true
        },
        "timestamps": {
          "unsupported": true
        },
        "tool_progress_overrides": {
          "unsupported": true
        },
        "bell_on_complete": {
          "unsupported": true
        }
      }
    },
    "memory": {
      "type": "object",
      "properties": {
        "memory_enabled": {
          "default": true,
          "type": "boolean"
        },
        "user_profile_enabled": {
          "default": true,
          "type": "boolean"
        },
        "memory_char_limit": {
          "default": 2200,
          "type": "number"
        },
        "user_char_limit": {
          "default": 1375,
          "type": "number"
        },
        "nudge_interval": {
          "default": 10,
          "type": "number"
        },
        "provider": {
          "default": "",
          "type": "string"
        },
        "write_approval": {
          "unsupported": true
        },
        "retaindb": {
          "type": "object",
          "additionalProperties": {}
        }
      }
    },
    "skills": {
      "type": "object",
      "properties": {
        "inline_shell_timeout": {
          "unsupported": true
        },
        "external_dirs": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "creation_nudge_interval": {
          "default": 10,
          "type": "number"
        },
        "config": {
          "default": {},
          "type": "object",
          "additionalProperties": {}
        },
        "hub": {
          "type": "object",
          "properties": {
            "index_url": {
              "type": "string"
            },
            "github_api": {
              "type": "string"
            },
            "default_taps": {
              "type": "boolean"
            }
          },
          "additionalProperties": {}
        },
        "template_vars": {
          "unsupported": true
        },
        "inline_shell": {
          "unsupported": true
        },
        "guard_agent_created": {
          "unsupported": true
        },
        "write_approval": {
          "unsupported": true
        },
        "create_dir": {
          "unsupported": true
        },
        "disabled": {
          "unsupported": true
        },
        "platform_disabled": {
          "type": "object",
          "additionalProperties": {}
        },
        "ledger": {
          "type": "boolean"
        }
      }
    },
    "delegation": {
      "type": "object",
      "properties": {
        "model": {
          "default": "",
          "type": "string"
        },
        "provider": {
          "default": "",
          "type": "string"
        },
        "base_url": {
          "default": "",
          "type": "string"
        },
        "api_key": {
          "default": "",
          "type": "string"
        },
        "max_iterations": {
          "default": 50,
          "type": "number"
        },
        "max_concurrent_children": {
          "default": 3,
          "type": "number"
        },
        "max_spawn_depth": {
          "default": 1,
          "type": "number"
        },
        "max_summary_chars": {
          "default": 24000,
          "type": "number"
        },
        "subagent_auto_approve": {
          "default": false,
          "type": "boolean"
        },
        "orchestrator_enabled": {
          "default": true,
          "type": "boolean"
        },
        "api_mode": {
          "unsupported": true
        },
        "child_timeout_seconds": {
          "unsupported": true
        },
        "inherit_mcp_toolsets": {
          "unsupported": true
        },
        "fallback_providers": {
          "unsupported": true
        },
        "reasoning_effort": {
          "unsupported": true
        }
      }
    },
    "approvals": {
      "type": "object",
      "properties": {
        "mode": {
          "default": "manual",
          "options": [
            "manual",
            "smart",
            "off"
          ],
          "message": "must be one of: manual, smart, off",
          "anyOf": [
            {
              "type": "string",
              "enum": [
                "manual",
                "smart",
                "off"
              ]
            },
            {
              "type": "boolean",
              "const": false
            }
          ]
        },
        "timeout": {
          "default": 300,
          "type": "number"
        },
        "cron_mode": {
          "default": "deny",
          "options": [
            "deny",
            "approve"
          ],
          "type": "string"
        },
        "single_query_mode": {
          "default": "deny",
          "options": [
            "deny",
            "approve"
          ],
          "type": "string"
        },
        "unattended_mode": {
          "default": "deny",
          "options": [
            "deny",
            "approve"
          ],
          "type": "string"
        },
        "deny": {
          "default": [],
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "smart_policy": {
          "default": "",
          "type": "string"
        },
        "denial_breaker_threshold": {
          "default": 3,
          "type": "number"
        },
        "mcp_reload_confirm": {
          "unsupported": true
        },
        "destructive_slash_confirm": {
          "unsupported": true
        }
      }
    },
    "security": {
      "type": "object",
      "properties": {
        "acked_advisories": {
          "unsupported": true
        },
        "allow_lazy_installs": {
          "unsupported": true
        },
        "redact_secrets": {
          "default": true,
          "type": "boolean"
        },
        "allow_private_urls": {
          "default": false,
          "type": "boolean"
        },
        "website_blocklist": {
          "type": "object",
          "properties": {
            "enabled": {
              "default": false,
              "type": "boolean"
            },
            "domains": {
              "default": [],
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "shared_files": {
              "default": [],
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          }
        },
        "tirith_enabled": {
          "unsupported": true
        },
        "tirith_path": {
          "unsupported": true
        },
        "tirith_timeout": {
          "unsupported": true
        },
        "tirith_fail_open": {
          "unsupported": true
        }
      }
    },
    "web": {
      "type": "object",
      "properties": {
        "backend": {
          "default": "",
          "type": "string"
        },
        "extract_char_limit": {
          "default": 15000,
          "type": "number"
        },
        "search_backend": {
          "unsupported": true
        },
        "extract_backend": {
          "unsupported": true
        },
        "cache_ttl_minutes": {
          "unsupported": true
        },
        "keyless_fallback": {
          "unsupported": true
        }
      }
    },
    "browser": {
      "type": "object",
      "properties": {
        "record_sessions": {
          "unsupported": true
        },
        "engine": {
          "unsupported": true
        },
        "auto_local_for_private_urls": {
          "unsupported": true
        },
        "allow_unsafe_evaluate": {
          "unsupported": true
        },
        "restrict_evaluate": {
          "unsupported": true
        },
        "dialog_policy": {
          "unsupported": true
        },
        "dialog_timeout_s": {
          "unsupported": true
        },
        "camofox": {
          "unsupported": true
        },
        "cloud_provider": {
          "default": "",
          "options": [
            "",
            "local",
            "browserbase",
            "browser-use"
          ],
          "type": "string"
        },
        "cdp_url": {
          "default": "",
          "type": "string"
        },
        "inactivity_timeout": {
          "default": 120,
          "type": "number"
        },
        "command_timeout": {
          "default": 30,
          "type": "number"
        },
        "snapshot_threshold": {
          "default": 15000,
          "type": "number"
        },
        "headed": {
          "default": false,
          "type": "boolean"
        },
        "allow_private_urls": {
          "default": false,
          "type": "boolean"
        },
        "profile": {
          "default": "",
          "type": "string"
        }
      }
    },
    "image_gen": {
      "type": "object",
      "properties": {
        "provider": {
          "default": "fal",
          "type": "string"
        },
        "model": {
          "default": "",
          "type": "string"
        }
      },
      "additionalProperties": {}
    },
    "tts": {
      "type": "object",
      "properties": {
        "gemini": {
          "unsupported": true
        },
        "xai": {
          "unsupported": true
        },
        "mistral": {
          "unsupported": true
        },
        "minimax": {
          "unsupported": true
        },
        "kittentts": {
          "unsupported": true
        },
        "neutts": {
          "unsupported": true
        },
        "piper": {
          "unsupported": true
        },
        "deepinfra": {
          "unsupported": true
        },
        "provider": {
          "default": "edge",
          "type": "string"
        },
        "edge": {
          "type": "object",
          "properties": {
            "voice": {
              "default": "en-US-AriaNeural",
              "type": "string"
            }
          }
        },
        "openai": {
          "type": "object",
          "properties": {
            "model": {
              "default": "gpt-4o-mini-tts",
              "type": "string"
            },
            "voice": {
              "default": "alloy",
              "type": "string"
            }
          }
        },
        "elevenlabs": {
          "type": "object",
          "properties": {
            "voice_id": {
              "default": "pNInz6obpgDQGcFmaJgB",
              "type": "string"
            },
            "model_id": {
              "default": "eleven_multilingual_v2",
              "type": "string"
            }
          }
        },
        "pre_synthesis": {
          "unsupported": true
        }
      }
    },
    "stt": {
      "type": "object",
      "properties": {
        "echo_transcripts": {
          "unsupported": true
        },
        "mistral": {
          "unsupported": true
        },
        "elevenlabs": {
          "unsupported": true
        },
        "deepinfra": {
          "unsupported": true
        },
        "enabled": {
          "default": true,
          "type": "boolean"
        },
        "provider": {
          "default": "local",
          "type": "string"
        },
        "local": {
          "type": "object",
          "properties": {
            "model": {
              "default": "base",
              "type": "string"
            },
            "language": {
              "unsupported": true
            }
          }
        },
        "openai": {
          "type": "object",
          "properties": {
            "model": {
              "default": "whisper-1",
              "type": "string"
            }
          }
        },
        "groq": {
          "type": "object",
          "properties": {
            "model": {
              "default": "whisper-large-v3-turbo",
              "type": "string"
            }
          }
        }
      }
    },
    "voice": {
      "type": "object",
      "properties": {
        "beep_enabled": {
          "unsupported": true
        },
        "barge_in": {
          "unsupported": true
        },
        "record_key": {
          "default": "ctrl+b",
          "type": "string"
        },
        "max_recording_seconds": {
          "default": 120,
          "type": "number"
        },
        "auto_tts": {
          "default": false,
          "type": "boolean"
        },
        "silence_threshold": {
          "default": 200,
          "type": "number"
        },
        "silence_duration": {
          "default": 3,
          "type": "number"
        }
      }
    },
    "code_execution": {
      "type": "object",
      "properties": {
        "timeout": {
          "default": 300,
          "type": "number"
        },
        "max_tool_calls": {
          "default": 50,
          "type": "number"
        },
        "mode": {
          "unsupported": true
        },
        "kernel_idle_timeout": {
          "unsupported": true
        },
        "max_session_kernels": {
          "unsupported": true
        }
      }
    },
    "tool_loop_guardrails": {
      "type": "object",
      "properties": {
        "warnings_enabled": {
          "default": true,
          "type": "boolean"
        },
        "hard_stop_enabled": {
          "default": false,
          "type": "boolean"
        },
        "warn_after": {
          "type": "object",
          "properties": {
            "exact_failure": {
              "default": 2,
              "type": "number"
            },
            "same_tool_failure": {
              "default": 3,
              "type": "number"
            },
            "idempotent_no_progress": {
              "default": 2,
              "type": "number"
            }
          }
        },
        "hard_stop_after": {
          "type": "object",
          "properties": {
            "exact_failure": {
              "default": 5,
              "type": "number"
            },
            "same_tool_failure": {
              "default": 8,
              "type": "number"
            },
            "idempotent_no_progress": {
              "default": 5,
              "type": "number"
            }
          }
        },
        "non_interactive_hard_stop_enabled": {
          "unsupported": true
        },
        "loop_caps": {
          "unsupported": true
        }
      }
    },
    "cron": {
      "type": "object",
      "properties": {
        "chronos": {
          "unsupported": true
        },
        "mirror_delivery": {
          "unsupported": true
        },
        "max_parallel_jobs": {
          "unsupported": true
        },
        "session_db_timeout_seconds": {
          "unsupported": true
        },
        "provider": {
          "default": "",
          "type": "string"
        },
        "script_timeout_seconds": {
          "default": 120,
          "type": "number"
        },
        "max_parallel": {
          "default": 4,
          "type": "number"
        },
        "output_retention": {
          "default": 50,
          "type": "number"
        },
        "wrap_response": {
          "unsupported": true
        },
        "catch_up_missed": {
          "unsupported": true
        }
      }
    },
    "kanban": {
      "type": "object",
      "properties": {
        "worker_log_rotate_bytes": {
          "unsupported": true
        },
        "worker_log_backup_count": {
          "unsupported": true
        },
        "orchestrator_profile": {
          "unsupported": true
        },
        "max_in_progress_per_profile": {
          "unsupported": true
        },
        "auto_decompose": {
          "unsupported": true
        },
        "auto_decompose_per_tick": {
          "unsupported": true
        },
        "dispatch_in_gateway": {
          "default": true,
          "type": "boolean"
        },
        "dispatch_interval_seconds": {
          "default": 60,
          "type": "number"
        },
        "failure_limit": {
          "default": 2,
          "type": "number"
        },
        "max_in_progress": {
          "default": null,
          "anyOf": [
            {
              "type": "number"
            },
            {
              "type": "null"
            }
          ]
        },
        "dispatch_stale_timeout_seconds": {
          "default": 14400,
          "type": "number"
        },
        "auto_subscribe_on_create": {
          "default": true,
          "type": "boolean"
        },
        "default_assignee": {
          "default": "default",
          "type": "string"
        }
      }
    },
    "codex": {
      "type": "object",
      "properties": {
        "path": {
          "default": "",
          "type": "string"
        },
        "home": {
          "default": "",
          "type": "string"
        },
        "model": {
          "default": "",
          "type": "string"
        },
        "turn_timeout": {
          "default": 600,
          "type": "number"
        }
      }
    },
    "session_reset": {
      "type": "object",
      "properties": {
        "mode": {
          "default": "both",
          "options": [
            "both",
            "idle",
            "daily",
            "none"
          ],
          "type": "string"
        },
        "idle_minutes": {
          "default": 1440,
          "type": "number"
        },
        "at_hour": {
          "default": 4,
          "type": "number"
        },
        "notify": {
          "unsupported": true
        }
      }
    },
    "checkpoints": {
      "default": {
        "enabled": false,
        "max_snapshots": 20,
        "max_total_size_mb": 500,
        "max_file_size_mb": 10,
        "auto_prune": true,
        "retention_days": 7
      },
      "anyOf": [
        {
          "type": "boolean"
        },
        {
          "type": "object",
          "properties": {
            "enabled": {
              "default": false,
              "type": "boolean"
            },
            "max_snapshots": {
              "default": 20,
              "type": "number"
            },
            "max_total_size_mb": {
              "default": 500,
              "type": "number"
            },
            "max_file_size_mb": {
              "default": 10,
              "type": "number"
            },
            "auto_prune": {
              "default": true,
              "type": "boolean"
            },
            "retention_days": {
              "default": 7,
              "type": "number"
            },
            "delete_orphans": {
              "unsupported": true
            },
            "min_interval_hours": {
              "unsupported": true
            }
          }
        }
      ]
    },
    "group_sessions_per_user": {
      "default": true,
      "type": "boolean"
    },
    "thread_sessions_per_user": {
      "default": false,
      "type": "boolean"
    },
    "unauthorized_dm_behavior": {
      "default": "pair",
      "options": [
        "pair",
        "ignore"
      ],
      "type": "string"
    },
    "logging": {
      "type": "object",
      "properties": {
        "level": {
          "default": "INFO",
          "options": [
            "DEBUG",
            "INFO",
            "WARNING",
            "ERROR"
          ],
          "type": "string"
        },
        "max_size_mb": {
          "default": 5,
          "type": "number"
        },
        "backup_count": {
          "default": 3,
          "type": "number"
        },
        "file": {
          "unsupported": true
        },
        "format": {
          "unsupported": true
        }
      }
    },
    "save_trajectories": {
      "default": false,
      "type": "boolean"
    },
    "state": {
      "type": "object",
      "properties": {
        "backend": {
          "default": "sqlite",
          "options": [
            "sqlite",
            "postgres"
          ],
          "type": "string"
        },
        "url": {
          "default": "",
          "type": "string"
        }
      }
    },
    "budgets": {
      "type": "object",
      "properties": {
        "session_usd": {},
        "daily_usd": {},
        "job_usd": {},
        "session_tokens": {},
        "daily_tokens": {},
        "action": {}
      }
    },
    "curator": {
      "type": "object",
      "additionalProperties": {}
    },
    "dashboard": {
      "type": "object",
      "additionalProperties": {}
    },
    "plugins": {
      "type": "object",
      "additionalProperties": {}
    },
    "debug": {
      "type": "object",
      "additionalProperties": {}
    },
    "hooks": {
      "type": "object",
      "additionalProperties": {}
    },
    "webhooks": {
      "type": "object",
      "additionalProperties": {}
    },
    "moa": {
      "type": "object",
      "additionalProperties": {}
    },
    "fal": {
      "type": "object",
      "additionalProperties": {}
    },
    "personalities": {
      "unsupported": true
    },
    "max_live_sessions": {
      "unsupported": true
    },
    "mcp_discovery_timeout": {
      "unsupported": true
    },
    "mcp": {
      "unsupported": true
    },
    "bedrock": {
      "unsupported": true
    },
    "platform_hints": {
      "unsupported": true
    },
    "hooks_auto_accept": {
      "unsupported": true
    },
    "tools": {
      "unsupported": true
    },
    "model_catalog": {
      "unsupported": true
    },
    "streaming": {
      "unsupported": true
    },
    "sessions": {
      "unsupported": true
    },
    "lsp": {
      "unsupported": true
    },
    "x_search": {
      "unsupported": true
    },
    "paste_collapse_threshold": {
      "unsupported": true
    },
    "paste_collapse_threshold_fallback": {
      "unsupported": true
    },
    "paste_collapse_char_threshold": {
      "unsupported": true
    },
    "computer_use": {
      "unsupported": true
    },
    "desktop": {
      "unsupported": true
    },
    "vertex": {
      "unsupported": true
    },
    "context_file_max_chars": {
      "unsupported": true
    },
    "max_concurrent_sessions": {
      "unsupported": true
    },
    "database": {
      "unsupported": true
    },
    "privacy": {
      "unsupported": true
    },
    "human_delay": {
      "unsupported": true
    },
    "context": {
      "unsupported": true
    },
    "provider_routing": {
      "unsupported": true
    },
    "openrouter": {
      "unsupported": true
    },
    "platforms": {
      "unsupported": true
    },
    "gateway": {
      "unsupported": true
    },
    "slack": {
      "unsupported": true
    },
    "discord": {
      "unsupported": true
    },
    "telegram": {
      "unsupported": true
    },
    "whatsapp": {
      "unsupported": true
    },
    "matrix": {
      "unsupported": true
    },
    "mattermost": {
      "unsupported": true
    },
    "signal": {
      "unsupported": true
    },
    "email": {
      "unsupported": true
    },
    "sms": {
      "unsupported": true
    },
    "onboarding": {
      "unsupported": true
    },
    "secrets": {
      "unsupported": true
    },
    "honcho": {
      "unsupported": true
    },
    "acp": {
      "unsupported": true
    },
    "goals": {
      "unsupported": true
    },
    "skin": {
      "unsupported": true
    },
    "network": {
      "unsupported": true
    },
    "updates": {
      "unsupported": true
    },
    "fallback_model": {
      "unsupported": true
    }
  }
};
