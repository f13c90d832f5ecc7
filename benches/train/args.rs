//! The command line.

use std::path::PathBuf;

use burn_swap::config::parse_bytes;
use burn_swap::SwapConfig;
use burn_swap_models::{GptConfig, ImageShape, ModelKind};

use crate::case::{policy_takes_budget, Case, GptSize, PolicyRun};

pub const USAGE: &str =
    "usage: train [--models NAME[@cifar|@imagenet],...] [--image cifar|imagenet]
       [--batches N,...] [--policies plain,balanced,keep-all,swap-all,...]
       [--steps N] [--warmup N] [--max-warmup N] [--budget BYTES|auto] [--min-swap BYTES]
       [--case-timeout SECS] [--search-budget BYTES [--search-start N] [--search-max N]]
       [--gpt small|tiny] [--gpt-layers N] [--gpt-seq N] [--json PATH]
       [--unfused (CUDA builds)]
       [--device-memory BYTES (CUDA builds: hold all but BYTES of the device)] [--search]
       [--memory-every K (sample device and pinned memory every K steps, warm-up too, each said as it ends)]
       [--profiles DIR (each burn-swap case's plan, last iteration and memory timeline, in DIR/MODEL-INPUT-POLICY-bBATCH)]";

pub struct Options {
    /// (model, image shape) pairs.
    pub models: Vec<(ModelKind, ImageShape)>,
    pub batches: Vec<usize>,
    pub policies: Vec<String>,
    pub steps: usize,
    pub warmup: usize,
    pub max_warmup: usize,
    pub budget: Option<u64>,
    pub min_swap: u64,
    pub case_timeout: u64,
    pub search_budget: Option<u64>,
    /// Search for the largest batch (implied by `--search-budget`).
    pub search: bool,
    pub search_start: usize,
    pub search_max: usize,
    pub gpt: GptSize,
    pub json: Option<PathBuf>,
    pub unfused: bool,
    pub memory_every: usize,
    pub device_memory: Option<u64>,
    /// Write each burn-swap case's plan, last iteration and memory timeline
    /// under this folder.
    pub profiles: Option<PathBuf>,
}

/// The default matrix: the GPU matrix on CUDA, a small one on CPU.
pub fn default_models_and_batches() -> (&'static str, &'static str) {
    if cfg!(any(feature = "cuda", feature = "wgpu")) {
        ("vgg16,resnet50", "512,2048")
    } else {
        ("plain20", "8,32")
    }
}

pub fn parse_list<T>(
    text: &str,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse(s).ok_or_else(|| format!("{what}: cannot read `{s}`")))
        .collect()
}

pub fn parse_options(args: &[String]) -> Result<Options, String> {
    let (default_models, default_batches) = default_models_and_batches();
    let mut models_text = default_models.to_string();
    let mut image: Option<ImageShape> = None;
    let mut batches_text = default_batches.to_string();
    let mut policies_text = "plain,balanced,keep-all,swap-all".to_string();
    let mut gpt = GptConfig::small();
    let mut o = Options {
        models: Vec::new(),
        batches: Vec::new(),
        policies: Vec::new(),
        steps: 5,
        warmup: 3,
        max_warmup: 12,
        budget: None,
        min_swap: SwapConfig::default().min_swap_bytes,
        case_timeout: 300,
        search_budget: None,
        search: false,
        search_start: 64,
        search_max: 16384,
        gpt: GptSize::from_config(gpt),
        json: None,
        unfused: false,
        memory_every: 0,
        profiles: None,
        device_memory: None,
    };
    let mut gpt_layers = None;
    let mut gpt_seq = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        let count = |v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag} takes a number, not `{v}`"))
        };
        let bytes = |v: String| parse_bytes(&v).map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--models" | "--model" => models_text = value()?,
            "--image" => image = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--batches" | "--batch" => batches_text = value()?,
            "--policies" | "--policy" => policies_text = value()?,
            "--steps" => o.steps = count(value()?)?,
            "--warmup" => o.warmup = count(value()?)?,
            "--max-warmup" => o.max_warmup = count(value()?)?,
            // `auto` (as no `--budget`): the device's free memory.
            "--budget" => {
                o.budget = match value()? {
                    v if v.trim() == "auto" => None,
                    v => Some(bytes(v)?),
                }
            }
            "--min-swap" => o.min_swap = bytes(value()?)?,
            "--case-timeout" => o.case_timeout = count(value()?)? as u64,
            "--search-budget" => o.search_budget = Some(bytes(value()?)?),
            "--search" => o.search = true,
            "--device-memory" if cfg!(feature = "cuda") => o.device_memory = Some(bytes(value()?)?),
            "--search-start" => o.search_start = count(value()?)?,
            "--search-max" => o.search_max = count(value()?)?,
            "--gpt" => {
                gpt = match value()?.as_str() {
                    "small" => GptConfig::small(),
                    "tiny" => GptConfig::tiny(),
                    other => return Err(format!("--gpt: `{other}` is not small or tiny")),
                }
            }
            "--gpt-layers" => gpt_layers = Some(count(value()?)?),
            "--gpt-seq" => gpt_seq = Some(count(value()?)?),
            "--json" => o.json = Some(PathBuf::from(value()?)),
            "--profiles" => o.profiles = Some(PathBuf::from(value()?)),
            "--memory-every" => o.memory_every = count(value()?)?,
            "--unfused" if cfg!(feature = "cuda") => o.unfused = true,
            // cargo bench passes --bench to harness = false targets.
            "--bench" => {}
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    gpt.layers = gpt_layers.unwrap_or(gpt.layers);
    gpt.seq = gpt_seq.unwrap_or(gpt.seq);
    o.gpt = GptSize::from_config(gpt);
    o.models = parse_list(&models_text, "--models", |s| parse_model(s, image))?;
    o.batches = parse_list(&batches_text, "--batches", |s| {
        s.parse().ok().filter(|&b| b > 0)
    })?;
    o.policies = parse_list(&policies_text, "--policies", |s| Some(s.to_string()))?;
    for policy in &o.policies {
        PolicyRun::from_name(policy).map_err(|e| format!("--policies: {e}; or plain, balanced"))?;
    }
    if o.steps == 0 || o.search_start == 0 || o.search_max < o.search_start {
        return Err(
            "--steps and --search-start must be positive, --search-max at least --search-start"
                .into(),
        );
    }
    Ok(o)
}

/// `vgg16`, `vgg16@imagenet`: the image shape after `@`, else `--image`, else CIFAR.
pub fn parse_model(text: &str, image: Option<ImageShape>) -> Option<(ModelKind, ImageShape)> {
    let (name, shape) = match text.split_once('@') {
        Some((name, shape)) => (name, Some(shape.parse().ok()?)),
        None => (text, None),
    };
    Some((
        name.parse().ok()?,
        shape.or(image).unwrap_or(ImageShape::Cifar),
    ))
}

impl Options {
    pub fn case(
        &self,
        model: ModelKind,
        image: ImageShape,
        policy: &str,
        batch: usize,
        budget: Option<u64>,
    ) -> Case {
        Case {
            model: model.name().into(),
            image: image.to_string(),
            policy: policy.into(),
            batch,
            steps: self.steps,
            warmup: self.warmup,
            max_warmup: self.max_warmup,
            budget: budget.filter(|_| policy_takes_budget(policy)),
            min_swap: self.min_swap,
            gpt: self.gpt,
            unfused: self.unfused,
            memory_every: self.memory_every,
            device_memory: self.device_memory,
            profiles: self.profiles.clone(),
        }
    }
}
