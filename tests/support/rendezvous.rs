//! A loopback HTTP/1.1 server that holds every request until `want` have arrived, so a
//! test can see that requests are in flight at the same time (wiremock answers each as it
//! comes). It records arrivals and answers; it never reads a clock for an assertion.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::tick::{completion, found};

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Arrived(String),
    Answered(String),
}

#[derive(Default)]
pub struct Log {
    pub arrived: usize,
    pub events: Vec<Event>,
}

/// Starts the server; returns its base URL and its record of arrivals and answers. A
/// request still waiting after 30 s is answered 500, so a regression fails, not hangs.
pub fn rendezvous(want: usize) -> (String, Arc<(Mutex<Log>, Condvar)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let shared = Arc::new((Mutex::new(Log::default()), Condvar::new()));
    let log = Arc::clone(&shared);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = Arc::clone(&log);
            std::thread::spawn(move || hold_and_answer(stream, &log, want));
        }
    });
    (url, shared)
}

/// Reads one HTTP/1.1 request from `stream` and returns its JSON body's `model` (`None`
/// when the client closed the connection first).
pub fn read_model(stream: &std::net::TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Some(
        serde_json::from_slice::<Value>(&body).unwrap()["model"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

fn hold_and_answer(stream: std::net::TcpStream, shared: &(Mutex<Log>, Condvar), want: usize) {
    let Some(model) = read_model(&stream) else {
        return;
    };
    let (lock, arrivals) = shared;
    let status = {
        let mut log = lock.lock().unwrap();
        log.arrived += 1;
        log.events.push(Event::Arrived(model.clone()));
        arrivals.notify_all();
        let (mut log, waited) = arrivals
            .wait_timeout_while(log, Duration::from_secs(30), |l| l.arrived < want)
            .unwrap();
        log.events.push(Event::Answered(model.clone()));
        if waited.timed_out() { 500 } else { 200 }
    };
    let body = if status == 200 {
        completion(
            &model,
            &found(&format!("{model} saw the rendezvous"), 4),
            100,
            10,
        )
        .to_string()
    } else {
        json!({"error": {"message": "the other requests never came"}}).to_string()
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}
