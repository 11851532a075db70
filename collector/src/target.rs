//! Profiler server addresses as the user writes them: `grpc://HOST:PORT`,
//! comma-separated lists of them, or bare `HOST:PORT`.

use std::fmt;

/// One profiler server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Host name or IP address (IPv6 without brackets).
    pub host: String,
    pub port: u16,
}

impl Target {
    /// The URI tonic connects to (the profiler server speaks plaintext HTTP/2).
    pub fn uri(&self) -> String {
        if self.host.contains(':') {
            format!("http://[{}]:{}", self.host, self.port)
        } else {
            format!("http://{}:{}", self.host, self.port)
        }
    }

    /// The host part of the file name, as TensorFlow's client names it
    /// (`host_port`): two workers on one machine must not overwrite each other.
    pub fn file_host(&self) -> String {
        let raw = format!("{}_{}", self.host, self.port);
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Parses every address of every argument (each may be a comma-separated list).
pub fn parse_targets<S: AsRef<str>>(args: &[S]) -> Result<Vec<Target>, String> {
    let mut targets = Vec::new();
    for arg in args {
        for item in arg.as_ref().split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let target = parse_one(item)?;
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    if targets.is_empty() {
        return Err("no profiler server given; write grpc://HOST:PORT".to_string());
    }
    Ok(targets)
}

fn parse_one(item: &str) -> Result<Target, String> {
    let rest = match item.split_once("://") {
        Some(("grpc", rest)) => rest,
        Some((scheme, _)) => {
            return Err(format!("'{item}': unsupported scheme '{scheme}://'; the profiler server is grpc://HOST:PORT"))
        }
        None => item,
    };
    let rest = rest.trim_end_matches('/');
    let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
        let (host, after) =
            bracketed.split_once(']').ok_or_else(|| format!("'{item}': unclosed '[' in an IPv6 address"))?;
        (host, after.strip_prefix(':'))
    } else {
        match rest.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        }
    };
    let port = port.ok_or_else(|| format!("'{item}': no port; the profiler server is grpc://HOST:PORT"))?;
    let port: u16 = port.parse().map_err(|_| format!("'{item}': '{port}' is not a port number"))?;
    if host.is_empty() || host.contains('/') {
        return Err(format!("'{item}': no host name; the profiler server is grpc://HOST:PORT"));
    }
    if port == 0 {
        return Err(format!("'{item}': port 0 cannot be connected to"));
    }
    Ok(Target { host: host.to_string(), port })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_schemes() {
        let t = parse_targets(&["grpc://a:1,grpc://b.example:2", "c:3", "grpc://a:1"]).unwrap();
        let shown: Vec<String> = t.iter().map(|t| t.to_string()).collect();
        assert_eq!(shown, ["a:1", "b.example:2", "c:3"]);
        assert_eq!(t[1].uri(), "http://b.example:2");
        assert_eq!(t[1].file_host(), "b.example_2");
    }

    #[test]
    fn ipv6() {
        let t = parse_targets(&["grpc://[::1]:6009"]).unwrap();
        assert_eq!(t[0].host, "::1");
        assert_eq!(t[0].uri(), "http://[::1]:6009");
        assert_eq!(t[0].file_host(), "__1_6009");
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(parse_targets(&["http://a:1"]).unwrap_err().contains("unsupported scheme"));
        assert!(parse_targets(&["grpc://a"]).unwrap_err().contains("no port"));
        assert!(parse_targets(&["grpc://a:x"]).unwrap_err().contains("not a port"));
        assert!(parse_targets(&["grpc://:1"]).unwrap_err().contains("no host"));
        assert!(parse_targets(&[" , "]).unwrap_err().contains("no profiler server"));
        assert!(parse_targets(&["grpc://a:0"]).unwrap_err().contains("port 0"));
    }
}
